"""What every chat engine (and agent) does at the start of a turn and at the end of its prompt:
check the message and record it, then close the prompt with the earlier conversation that fits
and the user's latest message, which is never cut (``ragcore.prompt_budget``'s rule)."""

from __future__ import annotations

from ..errors import ConfigError
from ..memory import ChatMemory
from ..prompt_budget import Room, tokens_of
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


def fixed_parts(system_tokens: int, message: str) -> dict[str, int]:
    """The parts of a chat prompt that are never cut: the system prompt and the latest message."""
    return {"system prompt": system_tokens, "message": message_tokens(Message("user", message))}


def history_need(memory: ChatMemory, message: str, *, turns: int | None = None) -> int:
    """Tokens the earlier conversation would take whole (within the memory's limit, and its
    latest ``turns`` when given)."""
    if turns is not None:
        return tokens_of(memory.earlier(message, budget=memory.token_limit, turns=turns))
    latest = message_tokens(Message("user", message))
    return max(0, min(memory.token_count(), memory.token_limit) - latest)


def close_prompt(memory: ChatMemory, message: str, room: Room, *,
                 most: int | None = None, turns: int | None = None) -> list[Message]:
    """The earlier conversation that fits what is left of ``room`` (and ``most`` tokens, and
    its latest ``turns`` when given), then the latest message.

    History is the last flexible part of a prompt: it takes what the others left, within the
    memory's ``token_limit``, and a note in ``room`` says how much of it the window kept out.
    The bound itself (the limit, ``most``, ``turns``) is what a turn reads by design, not a
    trim: noting it would tell a person under every reply of a long chat that the window was
    too small.
    """
    bound = memory.token_limit if most is None else most
    earlier = memory.earlier(message, budget=min(room.left, bound), turns=turns)
    used = tokens_of(earlier)
    room.take(used)
    latest = Message("user", message)
    stored, stored_tokens = len(memory), memory.token_count()
    if stored and memory.messages[-1] == latest:
        stored, stored_tokens = stored - 1, stored_tokens - message_tokens(latest)
    if room.left + used < bound and _cut(
        earlier, memory.earlier(message, budget=bound, turns=turns)
    ):
        room.note(
            f"earlier conversation: {len(earlier)} of {stored} messages kept "
            f"({used:,} of {stored_tokens:,} tokens)"
        )
    return [*earlier, latest]


def _cut(kept: list[Message], bounded: list[Message]) -> bool:
    """Whether ``kept`` holds less than the memory's bound alone keeps (``bounded``)."""
    return len(kept) < len(bounded) or tokens_of(kept) < tokens_of(bounded)
