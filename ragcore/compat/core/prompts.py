"""``llama_index.core.prompts``: ``PromptTemplate(text)`` as ragcore's one-message template.

LlamaIndex's ``{context_str}`` and ``{query_str}`` are ragcore's ``{context}`` and
``{question}``; ``format`` takes either name and returns the chat messages to send.
"""

from __future__ import annotations

from typing import Any, Sequence

from ...errors import ConfigError
from ...prompts import PromptTemplate as _Template
from ...types import Message


def PromptTemplate(template: str, **unsupported: Any) -> _Template:  # noqa: N802
    """A one-message prompt from LlamaIndex's template text."""
    if unsupported:
        raise ConfigError(f"PromptTemplate takes the template text only in ragcore, got "
                          f"{sorted(unsupported)}")
    return _Template.from_string(template)


def ChatPromptTemplate(message_templates: Sequence[Message]) -> _Template:  # noqa: N802
    """A system message and a user message (LlamaIndex's ``ChatPromptTemplate``)."""
    by_role = {m.role: m.content for m in message_templates}
    if set(by_role) - {"system", "user"} or "user" not in by_role or len(by_role) != len(
        message_templates
    ):
        raise ConfigError("ChatPromptTemplate takes at most one system message and one user "
                          "message, in that order")
    return _Template("chat", by_role.get("system", ""), by_role["user"])


__all__ = ["ChatPromptTemplate", "PromptTemplate"]
