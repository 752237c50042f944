"""Span choice: a factoid answer the model chooses among the passages' phrases, not writes.

After the not-found gate lets a factoid answer through, a small model continuing "**" (the bold
short answer) sometimes writes a number or a name no passage holds. With span choice the
extractive answerer proposes the passages' likeliest phrases (``llms.extractive.phrases``) and a
model that can choose (``ChoosingLLM``: the packaged model, whose llama.cpp grammar confines its
reply to the phrases) picks one after the same prompt and prefill. The answer is then the chosen
phrase in bold and the sentence it stands in: "**1889**. It was built in 1889 by ...". Nothing
to choose among (a question asking for no phrase) or a reply outside the phrases gives ``None``:
the model writes the answer as before. "None of these" is not offered: the gate has already
decided the passages hold the answer.

The candidates, the choice and any reason it was not used go to ``trace.notes["span_choice"]``.
"""

from __future__ import annotations

import time
from typing import Any, Protocol, Sequence

from ..llms.extractive.phrases import candidate_phrases
from ..trace import Trace
from ..types import Message

# Phrases offered: enough that the right one is usually among them, few enough to read.
CANDIDATES = 6


class ChoosingLLM(Protocol):
    """An LLM whose reply can be confined to one of some texts."""

    def choose(self, messages: Sequence[Message], options: Sequence[str]) -> str: ...


def can_choose(llm: Any) -> bool:
    return callable(getattr(llm, "choose", None))


def chosen_answer(llm: ChoosingLLM, messages: Sequence[Message], trace: Trace, *,
                  question: str, passages: Sequence[str], embedder: Any = None,
                  limit: int = CANDIDATES) -> str | None:
    """The answer ``llm`` chooses after ``messages`` (the answer prompt, its prefill last) among
    the passages' phrases for ``question``, with the sentence it stands in; None: nothing was
    chosen, and the model should write the answer."""
    with trace.stage("span choice") as detail:
        phrases = candidate_phrases(passages, question, embedder=embedder, limit=limit)
        note: dict[str, Any] = {"candidates": [p.text for p in phrases], "chosen": None}
        trace.notes["span_choice"] = note
        if not phrases:
            note["skipped"] = "the passages offer no phrase for this question"
            detail.update(note)
            return None
        started = time.perf_counter()
        reply = llm.choose(messages, note["candidates"])
        trace.record_llm_call("span choice", list(messages), reply,
                              time.perf_counter() - started, model=getattr(llm, "model", ""))
        match = next((p for p in phrases if p.text == reply.strip()), None)
        if match is None:
            note["fell_back"] = f"the reply {reply!r} is none of the candidates"
        else:
            note["chosen"] = match.text
        detail.update(note)
    return None if match is None else f"**{match.text}**. {match.sentence}"
