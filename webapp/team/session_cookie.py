"""The browser cookie that keeps a team-mode sign-in across a reload (issue 22).

Streamlit reads cookies (``st.context.cookies``, those the browser sent when the page's
websocket opened) but has no call to write one, so the cookie is written by a one-line script
the page runs (``st.html`` with JavaScript): ``ragcore_session=<token>``, ``Path=/``,
``SameSite=Strict``, ``Secure`` when the page came over https, a ``Max-Age`` of the sessions'
longest life. What it holds is the ``sessions`` module's random token, nothing else; the team
database keeps only its hash, and the session behind it expires (12 h idle, 7 days at most) or
ends (log out, log out everywhere, a password change) whatever the cookie says.

A cookie set by a script cannot be ``HttpOnly``: a script injected into the page could read it.
The app renders no one's HTML unescaped, and a stolen token still dies with its session;
running behind a proxy that sets the cookie itself is the way to HttpOnly.

A write made just before ``st.rerun()`` would never reach the browser, so ``keep`` and ``drop``
note the wanted change in the session and ``flush`` (the gate calls it on every run) writes it.
"""

from __future__ import annotations

import json

import streamlit as st

from ragcore.workspace.team import LIFETIME_SECONDS
from webapp.session import Session, session

COOKIE = "ragcore_session"


def read() -> str | None:
    """The token the browser sent when this session opened (None: no cookie)."""
    try:
        value = st.context.cookies.get(COOKIE)
    except Exception:  # noqa: BLE001 - no request behind this run (bare mode): no cookie
        return None
    return value if isinstance(value, str) and value else None


def keep(token: str) -> None:
    session.session_cookie_pending = token


def drop() -> None:
    session.session_cookie_pending = ""


def flush() -> None:
    """Write (or clear) the cookie noted by ``keep``/``drop``, once."""
    token = session.take(Session.session_cookie_pending)
    if token is None:
        return
    st.html(f"<script>{script(token)}</script>", unsafe_allow_javascript=True)


def script(token: str) -> str:
    """The JavaScript that sets the cookie to ``token`` ("" expires it)."""
    age = int(LIFETIME_SECONDS) if token else 0
    return (f"document.cookie = {json.dumps(COOKIE)} + '=' + {json.dumps(token)} + "
            f"'; Path=/; SameSite=Strict; Max-Age={age}' + "
            "(location.protocol === 'https:' ? '; Secure' : '');")
