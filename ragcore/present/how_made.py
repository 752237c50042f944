"""How a response mode made its answer, read from its trace: the steps people compare modes by.

``trace_view`` lists every stage and call as the engine recorded them; this module names each
model call by the part it plays in its mode, so a side-by-side comparison shows *why* two modes
answered differently: refine's successive drafts, tree_summarize's levels of summaries,
accumulate's answer per passage group, and the single call of compact or simple_summarize. The
calls' purposes are those the synthesis plans give them (``ragcore.synthesis``: 'qa 1/3',
'refine 2/3', 'tree level 1 chunk 2', 'tree root', 'accumulate 2', 'simple_summarize' ...).
Calls that ran concurrently are recorded as they finished; steps come back in plan order.
``gate_note`` says what the not-found gate decided before the model answered, and from what.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .trace_view import TraceLike, trace_dict
from .format import counted

_REFINE = re.compile(r"^(qa|refine) (\d+)/(\d+)$")
_TREE_LEVEL = re.compile(r"^tree level (\d+) chunk (\d+)$")
_ACCUMULATE = re.compile(r"^accumulate (\d+)$")
ROOT_LEVEL = 1_000  # the tree's root sorts after every level below it


@dataclass(slots=True, frozen=True)
class MadeStep:
    """One model call as its mode uses it: a title, the prompt's last message, the reply."""

    title: str
    prompt: str
    reply: str
    order: tuple[int, int]  # plan order: (stage, position)


def made_steps(trace: TraceLike | None) -> list[MadeStep]:
    """The answer-making calls of a trace, titled by their part in the mode, in plan order."""
    steps = [_step(call) for call in trace_dict(trace).get("llm_calls", [])]
    return sorted((s for s in steps if s is not None), key=lambda s: s.order)


def made_summary(mode: str, trace: TraceLike | None) -> str:
    """One sentence on how ``mode`` made this answer: '3 drafts, each improving the last with
    the next passages', '2 levels of summaries', '4 separate answers' ..."""
    steps = made_steps(trace)
    count = len(steps)
    if count == 0:
        return "No model call: only the passages found."
    if count == 1:
        return f"One call: {steps[0].title.lower()}."
    if mode in ("refine", "compact"):
        return (f"{count} drafts: the first answers from the first passages, each next one "
                "improves the last with more passages.")
    if mode == "tree_summarize":
        below = [s for s in steps if s.order[0] < ROOT_LEVEL]
        levels = max((s.order[0] for s in below), default=0)
        return (f"{counted(len(below), 'summary', 'summaries')} over {counted(levels, 'level')}, "
                "then one summary of those "
                "(the root) is the answer.")
    if mode in ("accumulate", "compact_accumulate"):
        return f"{count} separate answers, one per group of passages, listed in order."
    return f"{count} model calls."


# What each signal of the gate is, in a person's words (its own chance follows it).
_SIGNAL_WORDS = (("p_not_found", "the model's chance of beginning its reply with \"Not found\""),
                 ("p_no", "the model's chance of saying \"No\" when asked whether the "
                          "passages hold the answer"),
                 ("p_answered", "a small model's chance that the passages hold the answer "
                                "(a model trained to tell answerable questions)"))


def gate_note(trace: TraceLike | None) -> str | None:
    """What the not-found gate decided and from which signals, each number named where it
    stands, so the threshold and a signal that round to the same percentage cannot be taken
    for each other (None: no gate ran)."""
    gate = trace_dict(trace).get("notes", {}).get("not_found_gate")
    if not gate:
        return None
    if "skipped" in gate:  # a list, summary or comparison: never refused by the factoid gate
        return f"The not-found gate did not run: {gate['skipped']}."
    signals = gate.get("signals") or {}
    read = "; ".join(f"{words}: {signals[name]:.0%}" for name, words in _SIGNAL_WORDS
                     if signals.get(name) is not None)
    decided = "it was, so it did" if gate["refuse"] else "it was less, so the model answered"
    note = (f"A quick check before the answer (the not-found gate) put the chance that the "
            f"passages do not hold the answer at {gate['score']:.0%}. It answers \"Not found\" "
            f"itself, without asking the model, when that chance is {gate['threshold']:.0%} or "
            f"more: {decided}.")
    return f"{note} That chance was worked out from {read}." if read else note


def _step(call: dict[str, Any]) -> MadeStep | None:
    purpose = str(call.get("purpose", ""))
    placed = _place(purpose)
    if placed is None:  # not an answer-making call (a condensed question, a router's choice)
        return None
    title, order = placed
    messages = call.get("messages") or []
    prompt = str(messages[-1].get("content", "")) if messages else ""
    return MadeStep(title, prompt, str(call.get("reply", "")), order)


def _place(purpose: str) -> tuple[str, tuple[int, int]] | None:
    if purpose == "qa":
        return "An answer from all the passages in one prompt", (1, 1)
    if match := _REFINE.match(purpose):
        number, total = int(match[2]), int(match[3])
        if number == 1:
            return f"Draft 1 of {total}: an answer from the first passages", (1, 1)
        return f"Draft {number} of {total}: the last draft refined with more passages", (1, number)
    if match := _TREE_LEVEL.match(purpose):
        level, chunk = int(match[1]), int(match[2])
        return f"Level {level}, summary {chunk}", (level, chunk)
    if purpose == "tree root":
        return "The root: one summary of everything below it, the answer", (ROOT_LEVEL, 1)
    if match := _ACCUMULATE.match(purpose):
        number = int(match[1])
        return f"Answer {number}: from passage group {number} alone", (1, number)
    if purpose == "simple_summarize":
        return "An answer from every passage in one prompt (cut to fit)", (1, 1)
    if purpose == "generation":
        return "An answer from the model alone, no passages", (1, 1)
    return None
