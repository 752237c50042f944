"""``llama_index.core.memory``: ``ChatMemoryBuffer`` is ragcore's ``ChatMemory``."""

from __future__ import annotations

from typing import Any

from ...memory import ChatMemory


class ChatMemoryBuffer(ChatMemory):
    """ragcore's token-limited memory with LlamaIndex's constructor."""

    @classmethod
    def from_defaults(
        cls, token_limit: int | None = None, llm: Any = None, chat_history: Any = None
    ) -> ChatMemoryBuffer:
        """A memory of ``token_limit`` tokens (else sized for ``llm``, else ragcore's default)."""
        memory = cls(token_limit=token_limit) if token_limit or llm is None else cls.from_llm(llm)
        for message in chat_history or ():
            memory.put(message)
        return memory

    def get_all(self) -> list:
        """Every stored message, oldest first."""
        return self.messages

    def set(self, messages: list) -> None:
        """Replace the stored messages."""
        self.reset()
        for message in messages:
            self.put(message)


__all__ = ["ChatMemoryBuffer"]
