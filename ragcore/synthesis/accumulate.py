"""Accumulate: ask the question of each chunk separately and list every answer in order.

Behind both ``accumulate`` (one prompt per chunk) and ``compact_accumulate`` (chunks packed
first). All calls are independent, so they form one final batch: the driver streams the first
answer live while the others run concurrently, and emits them in chunk order.
"""

from __future__ import annotations

from typing import Sequence

from ..prompts import PromptTemplate
from .steps import Batch, Call, Plan

ANSWER_SEPARATOR = "\n\n---\n\n"


def accumulate_plan(question: str, chunks: Sequence[str], *, qa: PromptTemplate) -> Plan:
    """Yield one final batch with a call per chunk; replies are headed "Response i: "."""
    calls = tuple(
        Call(f"accumulate {i}", qa.format(context=c, question=question))
        for i, c in enumerate(chunks, 1)
    )
    headers = tuple(
        ("" if i == 1 else ANSWER_SEPARATOR) + f"Response {i}: " for i in range(1, len(calls) + 1)
    )
    yield Batch(calls, final=True, headers=headers)
