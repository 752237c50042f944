"""The admins' panel in team mode: the accounts (create, disable, enable, reset a password,
change a role, delete) and the audit log (issue 22; not yet wired into a page).

Every change goes through ``ragcore.workspace.team.accounts``, which checks again that the person is
an admin and keeps the last admin; a refusal or a bad value is shown as the library words it.
The audit log shows the newest entries first, filtered by event.
"""

from __future__ import annotations

import time

import streamlit as st

from ragcore.errors import AccessDenied, ConfigError
from ragcore.workspace.team import EVENTS, Team, User
from ragcore.present import literal_markdown

CHANGES = ("Disable", "Enable", "Reset the password", "Make admin", "Make member", "Delete")


def accounts_panel(team: Team, admin: User) -> None:
    """The accounts table, the form to create one, and the form to change one."""
    if not admin.is_admin:
        st.info("Only an admin manages accounts: ask one of your admins.")
        return
    users = team.accounts.users()
    st.dataframe([{"Name": u.name, "Shown as": u.display, "Role": u.role,
                   "State": "disabled" if u.disabled else "active"} for u in users],
                 hide_index=True, width="stretch")
    _create_form(team, admin)
    _change_form(team, admin, users)


def _create_form(team: Team, admin: User) -> None:
    with st.form("create_account", clear_on_submit=True):
        st.markdown("**Create an account**")
        name = st.text_input("Name (to sign in with)", key="new_account_name")
        display = st.text_input("Shown name (optional)", key="new_account_display")
        password = st.text_input("First password (8 characters or more)", type="password",
                                 key="new_account_password")
        make_admin = st.checkbox("Admin", key="new_account_admin")
        submitted = st.form_submit_button("Create")
    if submitted:
        _apply(lambda: team.accounts.create(admin, name, password, display=display,
                                            role="admin" if make_admin else "member"),
               f"Created {name.strip().lower()}. Give them the password; they can change it.")


def _change_form(team: Team, admin: User, users: list[User]) -> None:
    with st.form("change_account"):
        st.markdown("**Change an account**")
        name = st.selectbox("Account", [u.name for u in users], key="change_account_name")
        change = st.radio("Change", CHANGES, horizontal=True, key="change_account_what")
        password = st.text_input("New password (to reset it)", type="password",
                                 key="change_account_password")
        submitted = st.form_submit_button("Apply")
    if not submitted or name is None:
        return
    user = team.accounts.require(name)
    actions = {
        "Disable": lambda: team.accounts.set_disabled(admin, user, True),
        "Enable": lambda: team.accounts.set_disabled(admin, user, False),
        "Reset the password": lambda: team.accounts.reset_password(admin, user, password),
        "Make admin": lambda: team.accounts.set_role(admin, user, "admin"),
        "Make member": lambda: team.accounts.set_role(admin, user, "member"),
        "Delete": lambda: team.accounts.delete(admin, user),
    }
    _apply(actions[change], f"{change}: done for {name}.")


def _apply(action, done: str) -> None:
    try:
        action()
    except (ConfigError, AccessDenied) as exc:
        st.error(literal_markdown(str(exc)))
        return
    st.success(done)


def audit_panel(team: Team, admin: User, *, limit: int = 200) -> None:
    """The newest audit entries (admins only), filtered by event."""
    if not admin.is_admin:
        st.info("Only an admin reads the audit log.")
        return
    event = st.selectbox("Event", ["all", *EVENTS], key="audit_event")
    entries = team.audit.read(admin, limit=limit, event=None if event == "all" else event)
    if not entries:
        st.caption("Nothing logged yet.")
        return
    st.dataframe([{"When (UTC)": time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(e.at)),
                   "Event": e.event, "Who": e.actor, "Target": e.target,
                   "Outcome": "ok" if e.ok else "failed", "Detail": e.detail}
                  for e in entries], hide_index=True, width="stretch")
