"""What every chat engine does at the start of a turn: check the message, record it, and fetch
the history that fits beside the engine's own prompt in the model's window."""

from __future__ import annotations

from ..errors import ConfigError
from ..llms.base import LLM
from ..memory import ChatMemory
from ..prompts import message_tokens
from ..types import Message


def start_turn(memory: ChatMemory, message: str) -> None:
    """Put the user's message into the memory (a retry of an unanswered one is not repeated)."""
    if not isinstance(memory, ChatMemory):
        raise ConfigError(
            f"memory must be a ChatMemory, got {type(memory).__name__}: create one with "
            "ChatMemory.from_llm(llm) and pass it to every chat call"
        )
    if not isinstance(message, str) or not message.strip():
        raise ConfigError("the message is empty: type a question or request")
    memory.put_user_message(message)


def prompt_tokens(messages: list[Message]) -> int:
    return sum(map(message_tokens, messages))


def fitted_history(memory: ChatMemory, llm: LLM, *, prefix_tokens: int) -> list[Message]:
    """The conversation (ending with the current message) that fits beside ``prefix_tokens``."""
    window = llm.context_window - llm.num_output
    return memory.get(extra_tokens=prefix_tokens, max_tokens=window)


def earlier_history(history: list[Message], message: str) -> list[Message]:
    """The conversation before the current message (drops it from the end)."""
    if history and history[-1].role == "user" and history[-1].content == message:
        return history[:-1]
    return history
