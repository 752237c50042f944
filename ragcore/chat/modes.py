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


# Only a follow-up that refers back (``follow_up.refers_back``) is rewritten, in both condense
# modes; they differ in what the answer reads.
CHAT_MODE_DESCRIPTIONS: dict[ChatMode, str] = {
    ChatMode.SIMPLE: "Chat with the model alone; the documents are not searched.",
    ChatMode.CONDENSE_QUESTION: (
        "A follow-up that refers back is rewritten as a standalone question; that question is "
        "answered by a query engine with the chosen response mode, without the conversation."
    ),
    ChatMode.CONTEXT: (
        "Search with the message as written, never rewritten, and chat with the passages "
        "found and the conversation."
    ),
    ChatMode.CONDENSE_PLUS_CONTEXT: (
        "Search with the message, or with the standalone rewrite of a follow-up that refers "
        "back, and chat with the passages found and the conversation."
    ),
    ChatMode.REACT: (
        "An agent that decides whether to search the documents (and use other tools), "
        "reasoning step by step; it may answer without a search."
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
