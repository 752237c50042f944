"""``llama_index.core.llms``: ``ChatMessage`` (ragcore's ``Message``) and ``MessageRole``."""

from __future__ import annotations

from enum import Enum

from ...types import Message
from ..llm_calls import ChatResponse, CompletionResponse

ChatMessage = Message


class MessageRole(str, Enum):
    """The roles a message can have; equal to their plain strings ("user" ...)."""

    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"

    def __str__(self) -> str:
        return self.value


__all__ = ["ChatMessage", "ChatResponse", "CompletionResponse", "MessageRole"]
