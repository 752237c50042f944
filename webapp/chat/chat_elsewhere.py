"""A chat asked for (by its link, or from the saved chats) that another tab or person has open.

Only one browser session writes into a conversation (``webapp.open_chats``). The session that
asked for a chat open elsewhere is told so and keeps a chat of its own; it may read the other
one, read-only (no question box, no buttons that change it), and continue it here once the
other session has let go of it (its tab closed, or it opened another chat).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from webapp import open_chats, state
from webapp.session import Session, session
from webapp.team import team_state

ELSEWHERE_TEXT = ("The chat in this link is open in another tab or browser. So that two "
                  "people's questions never land in one conversation, this tab has a new chat "
                  "of its own.")
READ_ONLY_TEXT = ("Read-only: this chat is open in another tab or browser, where its "
                  "questions are asked.")


def chat_elsewhere(ws: Any) -> bool:
    """Tell about a chat asked for that is open elsewhere; True when that chat is shown here
    read-only, instead of this session's own (the page then draws nothing else)."""
    wanted = session.chat_elsewhere
    if wanted is None:
        return False
    if session.viewing_chat != wanted:
        with st.container(key="elsewhere_notice"):
            st.info(ELSEWHERE_TEXT, icon=":material/tab:")
            left, right = st.columns(2)
            left.button("View that chat (read-only)", on_click=_view, args=(wanted,))
            right.button("Dismiss", on_click=_forget)
        return False
    try:
        chat = team_state.open_chat(ws, wanted)
    except Exception:  # noqa: BLE001 - deleted meanwhile, or no longer this person's
        _forget()
        return False
    _read_only(chat)
    return True


def _read_only(chat: Any) -> None:
    with st.container(key="elsewhere_read_only"):
        st.info(READ_ONLY_TEXT, icon=":material/visibility:")
        st.caption(chat.title or "untitled chat")
        for message in chat.messages:
            with st.chat_message(message.role):
                st.markdown(message.content)
        left, right = st.columns(2)
        left.button("Back to my chat", on_click=_back)
        if not open_chats.held_elsewhere(chat.id):  # the other tab let go of it
            right.button("Continue it here", on_click=_continue, args=(chat,))


def _view(chat_id: str) -> None:
    session.viewing_chat = chat_id


def _back() -> None:
    del session.viewing_chat


def _forget() -> None:
    session.forget(Session.chat_elsewhere, Session.viewing_chat)


def _continue(chat: Any) -> None:
    if state.open_saved_chat(chat):
        _forget()
