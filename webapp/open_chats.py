"""Which browser session has which chat open: one conversation, one writer.

Every browser session (a tab, another person's browser) runs its own script and asks its own
questions. Two sessions on one ``?chat=`` link wrote both people's turns into one conversation,
each session's memory blind to the other's. So the app keeps, for the whole process, the chat
each live session has open (``hold``, called whenever a session opens or starts one), and a
session about to open a chat asks first whether another live session holds it (``held_elsewhere``);
the Chat page then gives it a chat of its own and offers the other read-only
(``webapp.chat.chat_elsewhere``). A session that is gone (its tab closed or reloaded: Streamlit
no longer counts it active) holds nothing, so its chat opens again by its link.
"""

from __future__ import annotations

import threading
from typing import Callable

_LOCK = threading.Lock()
_HELD: dict[str, str] = {}  # session id -> the id of the chat it has open


def this_session() -> str | None:
    """The id of the browser session running this script (None: no session, as in tests)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx(suppress_warning=True)
    return None if ctx is None else ctx.session_id


def _session_alive(session_id: str) -> bool:
    from streamlit.runtime import Runtime

    return Runtime.exists() and Runtime.instance().is_active_session(session_id)


def hold(chat_id: str | None, *, session: str | None = None) -> None:
    """Note that this session (or ``session``) has ``chat_id`` open now (None: no chat)."""
    session = session or this_session()
    if session is None:
        return
    with _LOCK:
        if chat_id is None:
            _HELD.pop(session, None)
        else:
            _HELD[session] = chat_id


def held_elsewhere(chat_id: str, *, session: str | None = None,
                   alive: Callable[[str], bool] = _session_alive) -> bool:
    """Whether a live session other than this one (or ``session``) has ``chat_id`` open; the
    sessions found gone are forgotten on the way."""
    session = session or this_session()
    with _LOCK:
        others = [s for s, held in _HELD.items() if held == chat_id and s != session]
    for other in others:
        if alive(other):
            return True
        with _LOCK:
            if _HELD.get(other) == chat_id:
                del _HELD[other]
    return False
