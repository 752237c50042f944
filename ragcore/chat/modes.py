"""The chat modes (LlamaIndex's ``ChatMode`` values) and what ``best`` resolves to.

``best`` picks for the configured LLM:

- a backend with native tool calls (it has ``chat_with_tools``, e.g. ``OpenAILLM``): the
  function-calling agent over the index tool and the caller's tools (LlamaIndex picks its
  OpenAI agent the same way);
- otherwise (the extractive backend, Ollama, any LLM without tool support):
  condense_plus_context, which always retrieves, needs no format discipline from the model, and
  handles follow-ups; if the caller passed extra ``tools``, react instead, since only an agent
  can use them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Sequence

from ..errors import ConfigError
from ..llms.base import LLM, ToolCallingLLM


class ChatMode(str, Enum):
    """How a chat turn uses the index."""

    SIMPLE = "simple"
    CONDENSE_QUESTION = "condense_question"
    CONTEXT = "context"
    CONDENSE_PLUS_CONTEXT = "condense_plus_context"
    REACT = "react"
    BEST = "best"


CHAT_MODE_DESCRIPTIONS: dict[ChatMode, str] = {
    ChatMode.SIMPLE: "Chat with the model alone; the documents are not searched.",
    ChatMode.CONDENSE_QUESTION: (
        "Rewrite your message as a standalone question, then answer it from the documents "
        "with the chosen response mode."
    ),
    ChatMode.CONTEXT: (
        "Search the documents with your message as written and chat with the passages found."
    ),
    ChatMode.CONDENSE_PLUS_CONTEXT: (
        "Rewrite follow-ups as standalone questions, search with them, and chat with the "
        "passages found."
    ),
    ChatMode.REACT: (
        "An agent that decides when to search the documents (and use other tools), reasoning "
        "step by step."
    ),
    ChatMode.BEST: (
        "Pick for the model: a tool-calling agent if it supports tool calls, otherwise "
        "condense + context."
    ),
}

FUNCTION_CALLING = "function_calling"  # what ``best`` resolves to for tool-calling backends


def parse_chat_mode(value: ChatMode | str) -> ChatMode:
    try:
        return ChatMode(value)
    except ValueError:
        choices = ", ".join(m.value for m in ChatMode)
        raise ConfigError(f"unknown chat_mode {value!r}: choose one of {choices}") from None


def best_chat_mode(llm: LLM, *, tools: Sequence[Any] = ()) -> str:
    """What ``best`` means for ``llm``: a ChatMode value, or "function_calling".

    Function calling only where tool calls are native: the packaged model reads its calls back
    from text (``native_tool_calls = False``), and one retrieval per turn answers faster."""
    if isinstance(llm, ToolCallingLLM) and getattr(llm, "native_tool_calls", True):
        return FUNCTION_CALLING
    return ChatMode.REACT.value if tools else ChatMode.CONDENSE_PLUS_CONTEXT.value
