"""What a person waits for, and whose time it is: the pure figures of ``bench_wait``.

One answer is a ``Wait``: seconds from the question to each thing a person sees (the passages,
the first reading line, the first token, the written draft, the checked answer), the trace's
stages, and the model's own reading and writing as llama.cpp timed it (``ModelPass``). The
answer's own time for ragcore is the whole wait less the model's passes that made the answer
(``own_time``): query embedding, sentence selection, cards, the gate's other signals, the check,
and anything between them. No I/O and no model here, so the arithmetic is tested on its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterable, Sequence

# Stages that are the model reading or writing (``Trace.record_llm_call`` names them so); their
# time is taken from llama.cpp's own timings instead, which leave out ragcore's side of the call.
MODEL_STAGE_PREFIX = "llm: "
GATE_STAGE = "not-found gate"


@dataclass(frozen=True, slots=True)
class ModelPass:
    """One request to the model, as llama.cpp timed it; ``at``: seconds from the question to
    when it ended (which tells the answer's passes from the check's)."""

    at: float
    read_tokens: int
    read_seconds: float
    written_tokens: int
    write_seconds: float

    @property
    def seconds(self) -> float:
        return self.read_seconds + self.write_seconds


@dataclass(frozen=True, slots=True)
class Wait:
    """One answer, seconds from the question to each state a person sees."""

    passages: float  # the passages found: the first content on screen (CLI: a line on stderr)
    first_token: float
    written: float  # the draft whole; the check begins
    whole: float  # the checked answer in the draft's place
    reading: float | None = None  # the first "Reading the passages: n of m words" line
    stages: tuple[tuple[str, float], ...] = ()
    passes: tuple[ModelPass, ...] = ()
    tokens_in: int = 0  # the trace's prompt tokens (cl100k, every recorded call)

    @property
    def first_content(self) -> float:
        """The first thing on screen that is about the question (not a "searching" label)."""
        return self.passages


@dataclass(frozen=True, slots=True)
class OwnTime:
    """ragcore's share of one answer, and where it went."""

    whole: float
    model: float  # the model reading and writing the answer (the gate's pass included)
    judge: float  # the model reading and writing for the check (counted as ragcore's)
    by_stage: dict[str, float] = field(default_factory=dict)

    @property
    def seconds(self) -> float:
        return max(0.0, self.whole - self.model)

    @property
    def share(self) -> float:
        """Everything but the model's answer passes, of the whole wait (the check counted)."""
        return self.seconds / self.whole if self.whole > 0 else 0.0

    @property
    def share_judge_as_model(self) -> float:
        """The same with the check's judging pass counted as the model's."""
        return max(0.0, self.seconds - self.judge) / self.whole if self.whole > 0 else 0.0


def percentile(values: Iterable[float], share: float) -> float:
    """The ``share`` quantile (0.5: median, 0.9: p90), linear between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("percentile of no values: measure at least one answer")
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share ({share}) must be between 0 and 1")
    rank = share * (len(ordered) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def own_time(wait: Wait) -> OwnTime:
    """ragcore's time in ``wait``: the whole less the model's passes before the draft was
    whole; per stage, the trace's stages (the gate less its model pass), the check (less its
    judging pass) and "between stages" for the rest."""
    answer = [p for p in wait.passes if p.at <= wait.written]
    judged = [p for p in wait.passes if p.at > wait.written]
    model = sum(p.seconds for p in answer)
    judge = sum(p.seconds for p in judged)
    gate_pass = sum(p.seconds for p in answer if p.at <= wait.first_token)
    by_stage: dict[str, float] = {}
    for name, seconds in wait.stages:
        if name.startswith(MODEL_STAGE_PREFIX):
            continue
        if name == GATE_STAGE:
            seconds = max(0.0, seconds - gate_pass)
        by_stage[name] = by_stage.get(name, 0.0) + seconds
    by_stage["check (its judging pass aside)"] = max(0.0, wait.whole - wait.written - judge)
    by_stage["check: the model judging"] = judge
    own = OwnTime(wait.whole, model, judge)
    by_stage["between stages"] = max(0.0, own.seconds - sum(by_stage.values()))
    return OwnTime(wait.whole, model, judge, by_stage)


def pooled_share(times: Sequence[OwnTime]) -> float:
    """ragcore's share of all the answers' time together (each answer weighs its seconds)."""
    whole = sum(t.whole for t in times)
    return sum(t.seconds for t in times) / whole if whole > 0 else 0.0


def largest_stages(times: Sequence[OwnTime], count: int = 3) -> list[tuple[str, float]]:
    """The stages that took most of ragcore's time, median seconds per answer, largest first."""
    names = {name for t in times for name in t.by_stage}
    medians = {name: percentile([t.by_stage.get(name, 0.0) for t in times], 0.5)
               for name in names}
    return sorted(medians.items(), key=lambda item: -item[1])[:count]
