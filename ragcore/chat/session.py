"""A chat session: one stateless chat engine (or agent) and the memory of one conversation.

ragcore's engines are stateless: every ``chat(message, memory)`` is given the conversation, so
one engine serves many users (the app keeps a ``ChatMemory`` per user in its session state).
LlamaIndex's chat engines own their memory instead: ``chat(message)``, ``stream_chat``,
``reset()``, ``chat_history``. A ``ChatSession`` is that shape as a thin wrapper: it owns a
``ChatMemory`` (sized for the engine's LLM unless one is passed) and hands it to the engine on
every turn; the reply is the engine's own ``ChatResponse``, so streaming and whole text are the
same object read two ways. ``achat`` and ``astream_chat`` are thin asyncio drivers of the same
turn (run in a worker thread; ``async_response_gen()`` streams). Everything else (``mode``,
``llm``, ``tools`` ...) is the engine's.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterable

from ..errors import ConfigError
from ..memory import ChatMemory
from ..trace import Trace
from ..types import Message
from .response import ChatEngine, ChatResponse


class ChatSession:
    """``engine`` with its own memory: ``chat``, ``stream_chat``, ``reset``, ``chat_history``."""

    def __init__(self, engine: ChatEngine, *, memory: ChatMemory | None = None) -> None:
        if not callable(getattr(engine, "chat", None)):
            raise ConfigError(f"{engine!r} is not a chat engine: it needs chat(message, memory)")
        if memory is not None and not isinstance(memory, ChatMemory):
            raise ConfigError(f"memory must be a ChatMemory, got {type(memory).__name__}")
        self.engine = engine
        self.memory = memory if memory is not None else _memory_for(engine)

    def stream_chat(
        self,
        message: str,
        chat_history: Iterable[Message] | ChatMemory | None = None,
        *,
        trace: Trace | None = None,
    ) -> ChatResponse:
        """The reply, streaming as it is read; the memory gets it when the stream completes.

        ``chat_history`` replaces the conversation so far (LlamaIndex's meaning); a
        ``ChatMemory`` there is used for this turn instead of the session's own.
        """
        memory = self._memory(chat_history)
        return self.engine.chat(message, memory, trace=trace)

    def chat(
        self,
        message: str,
        chat_history: Iterable[Message] | ChatMemory | None = None,
        *,
        trace: Trace | None = None,
    ) -> ChatResponse:
        """The whole reply (read to the end before returning, so the memory holds it)."""
        response = self.stream_chat(message, chat_history, trace=trace)
        response.text  # noqa: B018 (drain the stream: the memory is updated at its end)
        return response

    async def achat(
        self, message: str, chat_history: Iterable[Message] | ChatMemory | None = None, *,
        trace: Trace | None = None,
    ) -> ChatResponse:
        """``chat`` for asyncio: the same turn in a worker thread, so the loop stays free."""
        return await asyncio.to_thread(self.chat, message, chat_history, trace=trace)

    async def astream_chat(
        self, message: str, chat_history: Iterable[Message] | ChatMemory | None = None, *,
        trace: Trace | None = None,
    ) -> ChatResponse:
        """``stream_chat`` for asyncio: read the reply with ``async for chunk in
        response.async_response_gen()``."""
        return await asyncio.to_thread(self.stream_chat, message, chat_history, trace=trace)

    def reset(self) -> None:
        """Forget the conversation."""
        self.memory.reset()

    @property
    def chat_history(self) -> list[Message]:
        """The conversation so far, oldest first."""
        return self.memory.messages

    def set_history(self, messages: Iterable[Message]) -> None:
        """Replace the conversation so far with ``messages`` (oldest first)."""
        messages = list(messages)
        bad = [m for m in messages if not isinstance(m, Message)]
        if bad:
            raise ConfigError(f"chat_history must hold Messages, got {type(bad[0]).__name__}")
        self.memory.reset()
        for item in messages:
            self.memory.put(item)

    def _memory(self, chat_history: Iterable[Message] | ChatMemory | None) -> ChatMemory:
        if chat_history is None:
            return self.memory
        if isinstance(chat_history, ChatMemory):
            return chat_history
        self.set_history(chat_history)
        return self.memory

    def __getattr__(self, name: str) -> Any:
        # Only called for names the session lacks: the engine's own attributes.
        if name == "engine":
            raise AttributeError(name)
        return getattr(self.engine, name)

    def __repr__(self) -> str:
        return f"ChatSession({self.engine!r}, messages={len(self.memory)})"


def _memory_for(engine: ChatEngine) -> ChatMemory:
    llm = getattr(engine, "llm", None)
    if llm is not None and hasattr(llm, "context_window"):
        return ChatMemory.from_llm(llm)
    return ChatMemory()
