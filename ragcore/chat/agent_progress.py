"""What a person is told while an agent works: the step under way and its seconds, at once.

An agent's reply streams only its final answer (``ragcore.agent``). Before it the model decides
whether to search and for what (tens of seconds on a busy machine: it reads the tools' instructions first),
a tool runs, the model reads what it found. ``agent_states`` reads the reply in a worker thread
(``progress.pulled``'s reader: the question's slot, its place in line and Stop carried over) and
yields in the caller's thread, at once and every ``tick`` seconds, an ``AgentProgress`` (the
step under way and its seconds, so the line moves while the model is silent); each step the
agent records (``trace.notes["reasoning"]``) as a ``StepTaken`` once it ends; and the answer's
chunks as text. It differs from ``progress.turn_states``, which tells the reading of passages
known before the model starts: an agent finds its passages as it works.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

from ..present.trace_view import step_doing
from .progress import TICK_SECONDS, _Puller

FIRST_STEP = "deciding whether to search, and for what"  # it may answer without searching
NEXT_STEP = "reading what it found and deciding what to do next"
WAITING = "waiting for the model (other questions are answered first)"
WRITING = "writing the answer"


@dataclass(frozen=True, slots=True)
class AgentProgress:
    """The step under way (``step``), what it does, and the seconds it has taken so far."""

    step: int
    doing: str
    seconds: float

    def line(self) -> str:
        """What a person reads: "Step 1: deciding whether to search, and for what… 12 s"."""
        return f"Step {self.step}: {self.doing}… {self.seconds:.0f} s"


@dataclass(frozen=True, slots=True)
class StepTaken:
    """A reasoning step that ended (its trace note), numbered from 1; never the answer's."""

    number: int
    step: dict[str, Any]


def doing_now(notes: dict[str, Any], *, writing: bool = False, waiting: bool = False,
              advanced: bool = False) -> tuple[int, str]:
    """The step under way and what it does, from the agent's trace notes: its finished steps
    (``reasoning``) and the tool call it is making (``acting``, set by ``Task.act``)."""
    steps = notes.get("reasoning") or []
    if steps and "answer" in steps[-1]:  # the answer's step, recorded as its text streams
        return len(steps), WRITING
    number, acting = len(steps) + 1, notes.get("acting")
    if waiting:
        return number, WAITING
    if writing:
        return number, WRITING
    if acting:
        given = acting.get("action_input")
        words = " ".join(map(str, given.values())) if isinstance(given, dict) else str(given)
        words = " ".join(words.split())
        words = words if len(words) <= 80 else words[:79] + "…"
        return number, f"{step_doing(acting, advanced=advanced)} for: {words}"
    return number, FIRST_STEP if number == 1 else NEXT_STEP


def agent_states(chunks: Iterable[str], notes: dict[str, Any], *, advanced: bool = False,
                 tick: float = TICK_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> Iterator[Any]:
    """An ``AgentProgress`` at once, then every ``tick`` seconds and after each chunk; each
    step ended as a ``StepTaken``; the answer's chunks as ``str`` (see the module's docstring).
    Stopping the iteration stops the model's work and closes ``chunks``."""
    puller = _Puller(chunks, every=tick)
    phase, began, shown, writing = doing_now(notes, advanced=advanced), clock(), 0, False
    yield AgentProgress(*phase, 0.0)  # before the model's first token: the step has begun
    reader = iter(puller)
    try:
        for chunk in reader:
            yield from _taken(notes, shown)
            shown = len(notes.get("reasoning") or [])
            if chunk is not None:
                writing = True
                yield chunk
            now = doing_now(notes, writing=writing, waiting=puller.waiting, advanced=advanced)
            if now != phase:
                phase, began = now, clock()
            yield AgentProgress(*phase, clock() - began)
        yield from _taken(notes, shown)
    finally:
        reader.close()  # the reader stopped early (Stop): the model's work stops too


def _taken(notes: dict[str, Any], shown: int) -> Iterator[StepTaken]:
    steps = notes.get("reasoning") or []
    for number in range(shown + 1, len(steps) + 1):
        if "answer" not in steps[number - 1]:
            yield StepTaken(number, steps[number - 1])
