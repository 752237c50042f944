"""The one-call modes: ``simple_summarize`` (all chunks in one prompt, the overflow cut off) and
``generation`` (the question alone, no context)."""

from __future__ import annotations

from ..prompts import PromptTemplate
from .steps import Batch, Call, Plan


def single_plan(purpose: str, template: PromptTemplate, **fields: str) -> Plan:
    """Yield one final call of ``template`` filled with ``fields``."""
    yield Batch((Call(purpose, template.format(**fields)),), final=True)
