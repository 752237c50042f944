"""The one-call modes: ``simple_summarize`` (all chunks in one prompt, the overflow cut off) and
``generation`` (the question alone, no context)."""

from __future__ import annotations

from ..prompts import PromptTemplate
from ..types import AnswerRequest
from .steps import Batch, Call, Plan


def single_plan(
    kind: str, template: PromptTemplate, *, question: str, context: str | None = None
) -> Plan:
    """Yield one final call of ``template`` (the ``kind`` prompt) filled with the question and,
    unless it takes none, the context."""
    if context is None:
        messages, passages = template.format(question=question), ()
    else:
        messages, passages = template.format(context=context, question=question), (context,)
    yield Batch((Call(kind, messages, AnswerRequest(kind, question, passages)),), final=True)
