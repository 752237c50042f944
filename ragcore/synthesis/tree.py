"""Tree summarize: summarize packed chunks with the question in mind, then the summaries,
level by level, until one prompt holds everything; that last call (the root) is streamed.

The calls of one level do not depend on each other, so the driver runs them concurrently.
Each level's summaries are new text, so they are counted and packed again (the only repacking
besides the synthesizer's single initial pass). If a level fails to shrink (a model that
ignores its output limit), summaries are cut to half a prompt each, so the next level at
least halves: the tree always reaches a root.
"""

from __future__ import annotations

from typing import Sequence

from ..prompt_budget import truncate_to_tokens
from ..prompts import PromptTemplate
from .budget import SEPARATOR_TOKENS, count_each, pack_chunks
from ..types import AnswerRequest
from .steps import Batch, Call, Plan


def tree_plan(
    question: str,
    chunks: Sequence[str],
    *,
    summary: PromptTemplate,
    budget: int,
    notes: dict,
) -> Plan:
    """Yield one batch per level of summaries, then the root call as the final batch."""
    level = 1
    chunks = list(chunks)
    while len(chunks) > 1:
        calls = tuple(
            Call(f"tree level {level} chunk {i}", summary.format(context=c, question=question),
                 AnswerRequest("summary", question, (c,)))
            for i, c in enumerate(chunks, 1)
        )
        summaries = yield Batch(calls)
        chunks = _next_level(summaries, budget, previous=len(chunks), notes=notes)
        level += 1
    notes["tree_levels"] = level
    root = chunks[0] if chunks else ""
    messages = summary.format(context=root, question=question)
    yield Batch((Call("tree root", messages, AnswerRequest("summary", question, (root,))),),
                final=True)


def _next_level(summaries: list[str], budget: int, *, previous: int, notes: dict) -> list[str]:
    packed = pack_chunks(summaries, count_each(summaries), budget).texts
    if len(packed) < previous:
        return packed
    half = (budget - SEPARATOR_TOKENS) // 2
    cut = [truncate_to_tokens(s, half) for s in summaries]
    notes["summary_tokens_cut"] = notes.get("summary_tokens_cut", 0) + sum(n for _, n in cut)
    texts = [text for text, _ in cut]
    return pack_chunks(texts, count_each(texts), budget).texts
