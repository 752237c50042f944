"""Who is using the app: nobody to ask in single-user mode; in team mode, the sign-in gate.

``gate(root)`` is the one call the app makes before any page runs (issue 22; not yet wired into
app.py). Without ``RAGCORE_AUTH`` it returns ``(None, LOCAL_ADMIN)`` and shows nothing: the app
is exactly as before. With ``RAGCORE_AUTH=local`` it opens the workspace's ``Team`` (once per
process), and returns the signed-in account; otherwise it shows the one-time set-up form (no
admin yet: the first account becomes the admin) or the sign-in form, and stops the script. The
session token lives in ``st.session_state`` (only its hash in the team database); a sign-in is
throttled per name and per client address (``throttle``). ``account_menu`` is the sidebar's
"signed in as", log out and log out everywhere; ``password_form`` changes one's own password. ``check_address`` refuses single-user mode on a
network address (``access.check_listen_address``) with the reason on the page.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ragcore.errors import AccessDenied, ConfigError, LoginRefused, WorkspaceError
from ragcore.workspace.access import auth_mode, check_listen_address
from ragcore.workspace.accounts import LOCAL_ADMIN, User
from ragcore.workspace.team import Team

TOKEN_KEY = "team_session_token"


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
        st.error(str(exc))
        st.stop()


def gate(root: Path) -> tuple[Team | None, User]:
    """The team (None: single-user mode) and who is signed in; shows the set-up or sign-in
    form and stops the script while nobody is."""
    if auth_mode() == "oidc":  # fail closed until the provider's sign-in page is built
        st.error("RAGCORE_AUTH=oidc is not available in the app yet: use RAGCORE_AUTH=local "
                 "(accounts with passwords; see docs/teams.md)")
        st.stop()
    try:
        team = current_team(root)
    except WorkspaceError as exc:  # a damaged team database, or one from a newer ragcore
        st.error(str(exc))
        st.stop()
    if team is None:
        return None, LOCAL_ADMIN
    user = team.sessions.user(st.session_state.get(TOKEN_KEY))
    if user is not None:
        return team, user
    st.session_state.pop(TOKEN_KEY, None)
    if team.accounts.has_admin():
        _sign_in_form(team)
    else:
        _set_up_form(team)
    st.stop()


def _client() -> str:
    # the address the request came from (None under AppTest): one of the two throttle keys
    return str(st.context.ip_address or "")


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
        st.error(str(exc))
        return
    st.session_state[TOKEN_KEY] = team.sessions.start(user)
    st.rerun()


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
        st.error(str(exc))
        return
    st.session_state[TOKEN_KEY] = team.sessions.start(user)
    st.rerun()


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
        st.error(str(exc))
        return
    st.session_state[TOKEN_KEY] = team.sessions.start(user)
    st.success("Password changed; your other sessions were signed out.")


def sign_out(team: Team, user: User, *, everywhere: bool = False) -> None:
    token = st.session_state.pop(TOKEN_KEY, None)
    if everywhere:
        team.sessions.end_all(user)
    elif token:
        team.sessions.end(token)
    st.rerun()
