"""``llama_index.core.chat_engine``: ragcore's chat engines; wrap one in ``ChatSession`` to
give it a memory of its own (``index.as_chat_engine`` does)."""

from ...chat import (
    ChatSession,
    CondensePlusContextChatEngine,
    CondenseQuestionChatEngine,
    ContextChatEngine,
    SimpleChatEngine,
)

__all__ = ["ChatSession", "CondensePlusContextChatEngine", "CondenseQuestionChatEngine",
           "ContextChatEngine", "SimpleChatEngine"]
