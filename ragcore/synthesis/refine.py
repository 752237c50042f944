"""Refine: answer from the first chunk, then improve the answer with each next chunk.

The plan behind both ``refine`` (one prompt per retrieved chunk) and ``compact`` (chunks packed
into as few prompts as fit, then refined): the two modes differ only in how the synthesizer
lays out the chunks beforehand. Each refine prompt carries the answer so far; an answer longer
than the room reserved for it (``answer_limit`` tokens, the model's ``num_output``) is cut so
that the prompt still fits the window.
"""

from __future__ import annotations

from typing import Sequence

from ..prompt_budget import truncate_to_tokens
from ..prompts import PromptTemplate
from ..types import AnswerRequest
from .steps import Batch, Call, Plan


def refine_plan(
    question: str,
    chunks: Sequence[str],
    *,
    qa: PromptTemplate,
    refine: PromptTemplate,
    answer_limit: int,
    notes: dict,
) -> Plan:
    """Yield one call per chunk, each (after the first) refining the previous reply."""
    total = len(chunks)
    answer: str | None = None
    for number, chunk in enumerate(chunks, 1):
        final = number == total
        if answer is None:
            purpose = "qa" if total == 1 else f"qa 1/{total}"
            messages = qa.format(context=chunk, question=question)
            request = AnswerRequest("qa", question, (chunk,))
        else:
            answer, cut = truncate_to_tokens(answer, answer_limit)
            if cut:
                notes["answer_tokens_cut"] = notes.get("answer_tokens_cut", 0) + cut
            purpose = f"refine {number}/{total}"
            messages = refine.format(existing_answer=answer, context=chunk, question=question)
            request = AnswerRequest("refine", question, (chunk,), existing_answer=answer)
        replies = yield Batch((Call(purpose, messages, request),), final=final)
        answer = replies[0]
