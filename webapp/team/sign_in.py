"""Who is using the app: nobody to ask in single-user mode; in team mode, the sign-in gate.

``gate(root)`` is the one call app.py makes before any page runs (issue 22). Without
``RAGCORE_AUTH`` it returns ``(None, LOCAL_ADMIN)`` and shows nothing: the app is exactly as
before. With ``RAGCORE_AUTH=local`` it opens the workspace's ``Team`` (once per process) and
returns the signed-in account; otherwise it shows the one-time set-up form (no admin yet: the
first account becomes the admin) or the sign-in form, and stops the script. The session token
lives in ``st.session_state`` and in a cookie (``webapp.team.session_cookie``), so a reload keeps
the sign-in; only its hash is in the team database. A sign-in is throttled per name and per
client address (``throttle``; behind a proxy trusted by ``RAGCORE_TRUSTED_PROXY=1``, the
address it forwarded). Signing in or out forgets everything the browser session held. With
``RAGCORE_AUTH=oidc`` the organisation's provider signs people in (``webapp.team.sign_in_oidc``).
``account_menu`` is the sidebar's "signed in as", log out, log out everywhere and "My account"
(``password_form``); ``check_address`` refuses single-user mode on a network address
(``access.check_listen_address``) with the reason on the page.
"""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st

from ragcore.errors import AccessDenied, ConfigError, LoginRefused, WorkspaceError
from ragcore.workspace.team import LOCAL_ADMIN, Team, User, auth_mode, check_listen_address
from ragcore.present import literal_markdown
from webapp.team import session_cookie
from webapp.session import Session, session
from webapp.team.sign_in_oidc import oidc_gate

TRUSTED_PROXY_ENV = "RAGCORE_TRUSTED_PROXY"
# the sign-in screen runs before the navigation, so Streamlit would list pages/ in the sidebar
HIDE_PAGES = ("<style>[data-testid='stSidebarNav'], [data-testid='stSidebarNavSeparator'] "
              "{display: none}</style>")


@st.cache_resource(show_spinner=False)
def _team(root: str) -> Team:
    return Team.open(root)


def current_team(root: Path) -> Team | None:
    """The workspace's team in team mode, None in single-user mode."""
    return None if auth_mode() == "none" else _team(str(Path(root).resolve()))


def check_address() -> None:
    """Stop the app with the reason when it would serve single-user mode to a network."""
    try:
        check_listen_address(st.get_option("server.address"), auth_mode())
    except ConfigError as exc:
        st.error(literal_markdown(str(exc)))
        st.stop()


def gate(root: Path) -> tuple[Team | None, User]:
    """The team (None: single-user mode) and who is signed in; shows the set-up or sign-in
    form and stops the script while nobody is."""
    try:
        team = current_team(root)
    except WorkspaceError as exc:  # a damaged team database, or one from a newer ragcore
        st.error(literal_markdown(str(exc)))
        st.stop()
    if team is None:
        return None, LOCAL_ADMIN
    session_cookie.flush()
    if auth_mode() == "oidc":
        return team, oidc_gate(team)
    token = session.team_session_token or session_cookie.read()
    user = team.sessions.user(token)
    if user is not None:
        session.team_session_token = token
        return team, user
    if session.team_session_token:  # signed out meanwhile (expired, ended elsewhere)
        _forget_session()
    del session.team_current
    st.html(HIDE_PAGES)
    if team.accounts.has_admin():
        _sign_in_form(team)
    else:
        _set_up_form(team)
    st.stop()


def _client() -> str:
    """The second throttle key: the address the request came from (None under AppTest), or
    behind a proxy named trusted by ``RAGCORE_TRUSTED_PROXY=1`` the address it saw, the last
    of ``X-Forwarded-For`` (earlier entries are whatever the client wrote)."""
    if os.environ.get(TRUSTED_PROXY_ENV, "").strip() not in ("", "0"):
        forwarded = (st.context.headers.get("X-Forwarded-For") or "").split(",")
        if forwarded[-1].strip():
            return forwarded[-1].strip()
    return str(st.context.ip_address or "")


def _signed_in(team: Team, user: User) -> None:
    """Start ``user``'s session in this browser: a clean page state, the token kept."""
    _forget_session()
    token = team.sessions.start(user)
    session.team_session_token = token
    session_cookie.keep(token)
    st.rerun()


def _forget_session() -> None:
    """Drop everything this browser session held (an open chat, the chosen index, ...), so
    the next person to sign in here starts clean."""
    session.clear(keep=Session.session_cookie_pending)


def _sign_in_form(team: Team) -> None:
    st.title("Sign in")
    with st.form("sign_in"):
        name = st.text_input("Name", key="sign_in_name")
        password = st.text_input("Password", type="password", key="sign_in_password")
        submitted = st.form_submit_button("Sign in", type="primary")
    if not submitted:
        return
    try:
        user = team.accounts.authenticate(name, password, client=_client())
    except LoginRefused as exc:
        st.error(literal_markdown(str(exc)))
        return
    _signed_in(team, user)


def _set_up_form(team: Team) -> None:
    st.title("Set up this workspace")
    st.write("Nobody has an account yet. The account you create now is the administrator: it "
             "creates the other accounts and sees every index.")
    with st.form("set_up"):
        name = st.text_input("Name (to sign in with)", key="set_up_name")
        display = st.text_input("Shown name (optional)", key="set_up_display")
        password = st.text_input("Password (8 characters or more)", type="password",
                                 key="set_up_password")
        again = st.text_input("Password again", type="password", key="set_up_again")
        submitted = st.form_submit_button("Create the administrator", type="primary")
    if not submitted:
        return
    if password != again:
        st.error("the two passwords differ: type them again")
        return
    try:
        user = team.accounts.set_up(name, password, display=display)
    except (ConfigError, AccessDenied) as exc:
        st.error(literal_markdown(str(exc)))
        return
    _signed_in(team, user)


def account_menu(team: Team | None, user: User) -> None:
    """The sidebar's account lines (nothing in single-user mode)."""
    if team is None:
        return
    with st.sidebar:
        role = " (admin)" if user.is_admin else ""
        st.caption(f"Signed in as **{user.shown}**{role}")
        left, right = st.columns(2)
        if left.button("Log out", key="log_out"):
            sign_out(team, user)
        if right.button("Log out everywhere", key="log_out_everywhere"):
            sign_out(team, user, everywhere=True)
        if auth_mode() == "local":
            with st.expander("My account"):
                password_form(team, user)


def password_form(team: Team, user: User) -> None:
    """Change one's own password: the other sessions end, this one goes on."""
    with st.form("change_password", clear_on_submit=True):
        old = st.text_input("Current password", type="password", key="password_old")
        new = st.text_input("New password (8 characters or more)", type="password",
                            key="password_new")
        again = st.text_input("New password again", type="password", key="password_again")
        submitted = st.form_submit_button("Change my password")
    if not submitted:
        return
    if new != again:
        st.error("the two new passwords differ: type them again")
        return
    try:
        team.accounts.change_password(user, old, new)
    except (ConfigError, LoginRefused) as exc:
        st.error(literal_markdown(str(exc)))
        return
    session.team_session_token = token = team.sessions.start(user)
    session_cookie.keep(token)
    session_cookie.flush()
    st.success("Password changed; your other sessions were signed out.")


def sign_out(team: Team, user: User, *, everywhere: bool = False) -> None:
    token = session.take(Session.team_session_token)
    if everywhere:
        team.sessions.end_all(user)
    elif token:
        team.sessions.end(token)
    _forget_session()
    session_cookie.drop()
    if auth_mode() == "oidc":
        st.logout()
    st.rerun()
