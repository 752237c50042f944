"""LlamaIndex's four LLM calls, as methods the compat LLM classes share (defined once here).

Each is a thin view of the backend's one streaming path (``ragcore.llms.base``'s free
functions): ``complete(prompt)`` and ``chat(messages)`` drain it, ``stream_complete`` and
``stream_chat`` yield LlamaIndex's response objects as it runs, with ``delta`` (the new chunk)
and the text so far. The compat backends bind these functions as their methods.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Sequence

from ..llms import base
from ..types import Message
from .refusals import refuse


@dataclass(slots=True)
class CompletionResponse:
    """A completion: ``text`` so far and, when streaming, the newest ``delta``."""

    text: str
    delta: str | None = None

    def __str__(self) -> str:
        return self.text


@dataclass(slots=True)
class ChatResponse:
    """A chat reply: the assistant ``message`` so far and, when streaming, the newest ``delta``."""

    message: Message
    delta: str | None = None

    def __str__(self) -> str:
        return f"{self.message.role}: {self.message.content}"


_HINTS = {"tools": "tool calls go through an agent: FunctionCallingAgent.from_tools(tools, "
                   "llm=llm) (ragcore.compat.core.agent), or llm.chat_with_tools(messages, "
                   "[tool.metadata.to_openai_tool() ...])"}


def complete(self: Any, prompt: str, formatted: bool = False, **options: Any) -> CompletionResponse:
    """The whole completion of ``prompt``."""
    refuse("complete", options, _HINTS)
    return CompletionResponse(base.complete(self, prompt))


def stream_complete(self: Any, prompt: str, formatted: bool = False,
                    **options: Any) -> Iterator[CompletionResponse]:
    """The completion of ``prompt`` as it grows."""
    refuse("stream_complete", options, _HINTS)
    text = ""
    for chunk in base.stream_complete(self, prompt):
        text += chunk
        yield CompletionResponse(text, chunk)


def chat(self: Any, messages: Sequence[Message], **options: Any) -> ChatResponse:
    """The assistant's whole reply to ``messages``."""
    refuse("chat", options, _HINTS)
    return ChatResponse(base.chat(self, messages))


def stream_chat(self: Any, messages: Sequence[Message],
                **options: Any) -> Iterator[ChatResponse]:
    """The assistant's reply to ``messages`` as it grows."""
    refuse("stream_chat", options, _HINTS)
    previous = ""
    for message in base.stream_chat(self, messages):
        yield ChatResponse(message, message.content[len(previous):])
        previous = message.content
