"""Accumulate: ask the question of each chunk separately and list every answer in order.

Behind both ``accumulate`` (one prompt per chunk) and ``compact_accumulate`` (chunks packed
first). All calls are independent, so they form one final batch: the driver streams the first
answer live while the others run concurrently, and emits them in chunk order. Each answer is
headed with its number and the files its chunk came from ("Response 2 (report.pdf): "), and an
opening line that every answer repeats (a backend's own preamble, such as the extractive
answerer's label) is shown once, in the first answer.
"""

from __future__ import annotations

from typing import Sequence

from ..prompts import PromptTemplate
from ..types import AnswerRequest
from .steps import Batch, Call, Plan

ANSWER_SEPARATOR = "\n\n---\n\n"
MAX_NAMED_SOURCES = 3


def accumulate_plan(
    question: str,
    chunks: Sequence[str],
    *,
    qa: PromptTemplate,
    sources: Sequence[Sequence[str]] = (),
) -> Plan:
    """Yield one final batch with a call per chunk; replies are headed "Response i (files): ".

    ``sources[i]``: the file names of chunk ``i``'s nodes (none: the header has no files).
    """
    calls = tuple(
        Call(f"accumulate {i}", qa.format(context=c, question=question),
             AnswerRequest("qa", question, (c,)))
        for i, c in enumerate(chunks, 1)
    )
    headers = tuple(
        ("" if i == 1 else ANSWER_SEPARATOR) + response_header(i, sources[i - 1] if
                                                               i <= len(sources) else ())
        for i in range(1, len(calls) + 1)
    )
    yield Batch(calls, final=True, headers=headers, shared_opening=True)


def response_header(number: int, files: Sequence[str]) -> str:
    """ "Response 2: ", or with the chunk's files "Response 2 (a.txt, b.pdf): "."""
    names = list(dict.fromkeys(f for f in files if f))
    if not names:
        return f"Response {number}: "
    shown = ", ".join(names[:MAX_NAMED_SOURCES])
    more = f" and {len(names) - MAX_NAMED_SOURCES} more" if len(names) > MAX_NAMED_SOURCES else ""
    return f"Response {number} ({shown}{more}): "
