"""The packaged model's measured pace on this machine, and the reading budget it sets.

Every reply llama.cpp finishes reports how fast it read the prompt's new tokens and wrote its
own (``timings``); ``Pace`` keeps a moving average of both for each thread count, so a change of
threads (``machine.choose_threads``) starts from what that count did before. The reading budget
of a query (how many passage tokens the model is given: ``engines.from_index`` keeps the
question's closest sentences up to it) is what leaves a factoid's whole answer within
``ANSWER_SECONDS`` at the measured speeds: the prompt's other new tokens (``OTHER_TOKENS``), what
sentence selection reads past the budget (``READ_PER_BUDGET``) and the short reply
(``REPLY_TOKENS``) take their share of the wait, so a slower machine reads
fewer passage tokens, down to ``MIN_READING_TOKENS``, and a faster one more, up to what an answer
was measured to need (``MAX_READING_TOKENS``). The question's kind then scales it
(``grounding.kinds``: a list or a summary reads 2.5x more). The engine times a first read when
it loads (``engine``: its primer), so a process's first answer is budgeted from this machine's
speed too; until a reply has been measured, and for a budget fixed in the settings, the budget
is fixed.

The measured writing speed caps a reply the same way (``writing_cap``): no longer than what the
model writes in ``WRITING_SECONDS``, the wait a person gives an answer once it has begun, so on
a busy machine a long reply stops early (and says so: ``cut_short_note``) instead of writing
on for minutes. Until a reply has been timed, only the reply's own cap (``num_output``) holds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..cut_short import cut_short_note as written_note

# The whole factoid answer aimed at: issue 65's target is a p50 of 8 s on an idle machine, and
# a second is left for the load's moves. Until 2026-11-28 the budget was the passages the model
# reads in 4 s, with the prompt's other parts and the reply on top: 5.05 s on two idle threads
# here, but 8.6-11.4 s on one (reading 24-32 tokens a second: 160 passage tokens alone took
# 5-6.7 s), which is what a slower machine met (benchmarks/llm/README.md, "fresh").
ANSWER_SECONDS = 7.0
# The prompt tokens an answer reads (llama.cpp's count, the instructions cached after a slot's
# first answer) are about ``OTHER_TOKENS`` (the question, the template's lines, a file name)
# plus ``READ_PER_BUDGET`` per budget token: sentence selection reads a kept sentence's
# neighbours and an announced list past the budget, and the budget counts cl100k tokens. The
# State of the Union's factoids on one thread: median 178 read at a budget of 100 (21 answers),
# 217 at 160 (5); on two threads at 250, ~350 (the first token at 4.2 s at 83 a second).
OTHER_TOKENS = 55
READ_PER_BUDGET = 1.2
REPLY_TOKENS = 10  # a factoid's reply: its bold short answer, where it ends when vouched for
# The answer's own pass after the gate's (it reads the few tokens the gate did not) and
# ragcore's own share (search, sentence selection, the check): 0.8-1.2 s on one thread.
PASS_SECONDS = 1.0
# Writing speed against reading speed, for a budget before writing has been timed (one
# thread: 5.3 against 24 tokens a second, 6.6 against 32).
WRITING_SHARE = 0.2
# Below this a factoid's evidence is lost (offline, the stating sentence read, fixed budgets
# 60/80/100/160/250: grounded set's factoids of four collections 21/22/24/24/25 of 26, unseen
# tune half 15/15/15/15/15 of 16; lists, read at 2.5x, 8/8/9/11/12 of 13 and 6/6/6/8/8 of 10).
MIN_READING_TOKENS = 100
# Above this a faster machine reads no more: the evidence read stopped growing at 250 tokens
# (no model, fixed budgets 160/200/250/300/340/450: the unseen set's tune half 28/29/29/29/29/29
# of 37 answerable, the grounded set 61/64/65/65/65/65 of 85), while the model given 350 on two
# idle cores answered more questions from passages that do not answer them (tune half run 4:
# 10 wrong answers vouched for, against 8 at 200 in run 3) and took longer.
MAX_READING_TOKENS = 250
MIN_TIMED_READ = 32  # tokens: shorter reads (a cached prompt's tail) time the overhead
SMOOTHING = 0.5  # weight of the newest reply in the moving average
WRITING_SECONDS = 30.0  # of writing a person waits for once the answer has begun
MIN_WRITING_TOKENS = 64  # a reply shorter than this cannot say much: never cut below it


@dataclass(frozen=True, slots=True)
class Speeds:
    """Tokens a second, as last measured for one thread count (None: not measured yet)."""

    reading: float | None = None
    writing: float | None = None
    replies: int = 0


@dataclass(frozen=True, slots=True)
class ReadingBudget:
    """The passage tokens a query's model reads, and why (for the Settings page and trace)."""

    tokens: int
    reason: str

    def as_dict(self) -> dict[str, object]:
        return {"tokens": self.tokens, "reason": self.reason}


class Pace:
    """The model's measured reading and writing speed per thread count (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._speeds: dict[int, Speeds] = {}

    def record(self, timings: dict, threads: int) -> None:
        """Fold llama.cpp's ``timings`` of one finished reply into the average for ``threads``."""
        reading = _rate(timings, "prompt_n", "prompt_per_second", MIN_TIMED_READ)
        writing = _rate(timings, "predicted_n", "predicted_per_second", 2)
        if reading is None and writing is None:
            return
        with self._lock:
            old = self._speeds.get(threads, Speeds())
            self._speeds[threads] = Speeds(_average(old.reading, reading),
                                           _average(old.writing, writing), old.replies + 1)

    def speeds(self, threads: int) -> Speeds:
        with self._lock:
            return self._speeds.get(threads, Speeds())

    def reading_budget(self, threads: int, *, default: int, ceiling: int) -> ReadingBudget:
        """The passage tokens that leave a factoid's whole answer within ``ANSWER_SECONDS`` at
        ``threads``' measured speeds (``passage_tokens``), between ``MIN_READING_TOKENS`` and
        ``ceiling`` (at most ``MAX_READING_TOKENS``); ``default`` until a prompt has been
        measured."""
        speeds = self.speeds(threads)
        if speeds.reading is None:
            return ReadingBudget(default, f"{default} tokens until a reply has been timed")
        ceiling = min(ceiling, MAX_READING_TOKENS)
        tokens = max(MIN_READING_TOKENS, min(ceiling, passage_tokens(speeds.reading,
                                                                     speeds.writing)))
        # The seconds said are the measured rate's, not the aim's: at the floor (or a ceiling)
        # the budget is not what fits the aim (issue 65: "reads 17 tokens/s: 160 tokens in
        # about 4 s", which take 9.4 s).
        return ReadingBudget(tokens, f"reads {speeds.reading:.0f} tokens/s on {threads} "
                                     f"thread{'' if threads == 1 else 's'}: {tokens} tokens in "
                                     f"about {_seconds(tokens / speeds.reading)}")

    def writing_cap(self, threads: int, *, ceiling: int) -> int | None:
        """The tokens the model writes in ``WRITING_SECONDS`` at ``threads``' measured speed
        (at least ``MIN_WRITING_TOKENS``), when that is fewer than ``ceiling``; else None (and
        None until a reply has been timed)."""
        writing = self.speeds(threads).writing
        if writing is None:
            return None
        tokens = max(MIN_WRITING_TOKENS, int(writing * WRITING_SECONDS))
        return tokens if tokens < ceiling else None


def passage_tokens(reading: float, writing: float | None) -> int:
    """The passage tokens (to tens) read at ``reading`` tokens a second that leave a factoid's
    whole answer within ``ANSWER_SECONDS``, its other tokens and its reply at ``writing``
    (None: not timed yet, ``WRITING_SHARE`` of the reading) counted first; may be negative."""
    writing = writing or reading * WRITING_SHARE
    seconds = ANSWER_SECONDS - PASS_SECONDS - REPLY_TOKENS / writing
    return int(round((reading * seconds - OTHER_TOKENS) / READ_PER_BUDGET, -1))


def cut_short_note(tokens: int) -> str:
    """What a reply stopped by ``writing_cap`` ends with (``llms.cut_short``)."""
    return written_note(tokens, WRITING_SECONDS)


def _seconds(seconds: float) -> str:
    """"9 s", "1.5 s", "0.4 s": whole seconds from ten on."""
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.1g} s" if seconds < 1 else (
        f"{seconds:.1f} s".replace(".0 s", " s"))


def _rate(timings: dict, count: str, speed: str, least: int) -> float | None:
    try:
        n, rate = float(timings.get(count, 0)), float(timings.get(speed, 0))
    except (TypeError, ValueError):
        return None
    return rate if n >= least and rate > 0 else None


def _average(old: float | None, new: float | None) -> float | None:
    if new is None:
        return old
    return new if old is None else SMOOTHING * new + (1 - SMOOTHING) * old
