"""Who this session is, for the pages: the ``(team, user)`` app.py's sign-in gate found, and the
policy calls the pages make through it (issue 22).

``remember`` keeps the pair for the script run (app.py calls it after ``sign_in.gate`` on every
run); ``current`` gives it back: ``(None, LOCAL_ADMIN)`` in single-user mode, where every check
below passes and every listing is the plain workspace's, exactly as before team mode. In team
mode a page reached without the gate (no pair kept) stops instead of showing anything. The
decisions themselves are ``ragcore.workspace.team.access``'s (through ``permitted``): ``listed``
filters index folders (pickers, listings), ``can_index`` answers yes or no for a button,
``require_index`` raises ``AccessDenied`` (shown by the page's ``friendly_errors`` with the
policy's words) right before an action runs.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, TypeVar

import streamlit as st

from ragcore.workspace import permitted
from ragcore.workspace.team import LOCAL_ADMIN, User, auth_mode
from webapp.session import session

T = TypeVar("T")


def remember(team: Any, user: User) -> None:
    session.team_current = (team, user)


def forget() -> None:
    del session.team_current


def current() -> tuple[Any, User]:
    """The team (None: single-user mode) and the signed-in person."""
    found = session.team_current
    if found is not None:
        return found
    if auth_mode() == "none":
        return None, LOCAL_ADMIN
    st.info("Sign in first: open the app's start page.")
    st.stop()


def listed(ws: Any, names: Iterable[str], action: str = "list") -> list[str]:
    """The index folders of ``names`` this person may ``action`` (all in single-user mode)."""
    team, user = current()
    names = list(names)
    if team is None:
        return names
    return team.access.visible(user, names, lambda n: permitted.index_resource(ws, n),
                               action=action)


def listed_by(ws: Any, items: Iterable[T], name_of: Callable[[T], str]) -> list[T]:
    """``items`` (index infos, jobs' rows) whose index this person may list."""
    items = list(items)
    keep = set(listed(ws, {name_of(item) for item in items}))
    return [item for item in items if name_of(item) in keep]


def can_index(ws: Any, name: str, action: str, kind: str = "index") -> bool:
    team, user = current()
    return team is None or team.access.can(user, action,
                                           permitted.index_resource(ws, name, kind))


def require_index(ws: Any, name: str, action: str, kind: str = "index") -> None:
    """Raise ``AccessDenied`` (the policy's refusal, audit-logged) unless this person may."""
    team, user = current()
    permitted.require_index(team, user, ws, name, action, kind)


def save_chat(ws: Any, chat: Any) -> None:
    """Save ``chat`` as this person's (a new chat needs the right to chat with its index)."""
    team, user = current()
    permitted.save_chat(team, user, ws, chat)


def chats(ws: Any, *, index: str | None = None) -> list[Any]:
    """The saved chats this person may list: their own (every one in single-user mode)."""
    team, user = current()
    return permitted.chats_for(team, user, ws, index=index)


def open_chat(ws: Any, chat_id: str) -> Any:
    """Saved chat ``chat_id`` if it is this person's, else ``AccessDenied`` (the same words
    whether or not it exists)."""
    team, user = current()
    return permitted.open_chat(team, user, ws, chat_id)


def delete_chats(ws: Any, chat_ids: Iterable[str]) -> None:
    team, user = current()
    for chat_id in chat_ids:
        permitted.delete_chat(team, user, ws, chat_id)
