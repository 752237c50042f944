"""Versions of a conversation: Regenerate and Edit keep what they replace, to browse back to.

A saved chat's ``messages`` are the conversation as shown. Asking a question again (Regenerate:
as written; Edit: changed) forks the conversation at that question: the question and every turn
after it are kept as one version, and the new question with its reply is shown as the next.
The message at a fork carries the other versions (``ChatMessage.versions``, each a list of
messages from that position on) and its own place among them all (``ChatMessage.version``), so
the messages shown never change meaning for a reader that knows nothing of versions. Switching
swaps the shown messages with a kept version: the set of versions at a fork never changes, only
which one is shown. Versions nest: a kept version keeps the forks made inside it.
"""

from __future__ import annotations

from typing import Any, Iterable

from ..chats import ChatMessage, SavedChat, every_message, new_message, title_from  # noqa: F401


def versions_at(chat: SavedChat, position: int) -> tuple[int, int]:
    """(the number shown, how many) of the versions forked at ``position``, from 1; (1, 1)
    where the conversation never forked."""
    if position >= len(chat.messages):
        return 1, 1
    message = chat.messages[position]
    return message.version + 1, len(message.versions) + 1


def edited_at(chat: SavedChat, position: int) -> bool:
    """Whether a version forked at ``position`` asks another question than the one shown (an
    Edit: the versions are browsed at the question, not under the reply)."""
    if position >= len(chat.messages):
        return False
    shown = chat.messages[position].content
    return any(tail[0].content != shown for tail in chat.messages[position].versions)


def fork(chat: SavedChat, position: int, tail: list[ChatMessage]) -> None:
    """Show ``tail`` from ``position`` on, keeping what was shown there as a version before it
    (the newest version is the last); at the end of the chat, ``tail`` is simply added."""
    if not tail:
        raise ValueError("a fork needs at least one message to show: got none")
    if not 0 <= position <= len(chat.messages):
        raise ValueError(f"fork position {position} must be within the chat's "
                         f"{len(chat.messages)} messages")
    if position == len(chat.messages):
        chat.messages.extend(tail)
        return
    every = _every_version(chat, position) + [list(tail)]
    _show(chat, position, every, len(every) - 1)


def show_version(chat: SavedChat, position: int, number: int) -> None:
    """Show version ``number`` (from 1) of the conversation forked at ``position``."""
    shown, total = versions_at(chat, position)
    if not 1 <= number <= total:
        raise ValueError(f"version {number} must be between 1 and {total} (the versions "
                         f"kept at message {position})")
    if number != shown:
        _show(chat, position, _every_version(chat, position), number - 1)


def add_turn(chat: SavedChat, question: str, reply: str, *, sources: Iterable[Any] = (),
             trace: dict[str, Any] | None = None, at: int | None = None) -> ChatMessage:
    """Record a question and its reply: after the last turn, or (``at``: the position of a
    question asked again) as the newest version from there on. Returns the reply's message."""
    asked = new_message("user", question)
    answer = new_message("assistant", reply, sources=sources, trace=trace)
    if not chat.title:
        chat.title = title_from(question)  # a first name until the chat is titled
    fork(chat, len(chat.messages) if at is None else at, [asked, answer])
    chat.updated = answer.created
    return answer


def before(chat: SavedChat, position: int | None) -> list[ChatMessage]:
    """The messages shown before ``position`` (all of them for None): a question asked again
    there is answered with this history, not the turns it replaces."""
    return list(chat.messages if position is None else chat.messages[:position])


def _every_version(chat: SavedChat, position: int) -> list[list[ChatMessage]]:
    head = chat.messages[position]
    shown = chat.messages[position:]
    return head.versions[:head.version] + [shown] + head.versions[head.version:]


def _show(chat: SavedChat, position: int, every: list[list[ChatMessage]], index: int) -> None:
    for tail in every:  # a kept version's first message carries no versions: the fork does
        tail[0].versions, tail[0].version = [], 0
    head = every[index][0]
    head.versions, head.version = every[:index] + every[index + 1:], index
    chat.messages[position:] = every[index]
