"""Team (team mode, admins only): the accounts (create, disable, reset a password, change a
role, delete) and the audit log. The page is listed only for admins; reached any other way
(a member typing its URL) it says so and shows nothing."""

import streamlit as st

from webapp import shell
from webapp.team import team_state
from webapp.team.team_admin import accounts_panel, audit_panel


def main() -> None:
    shell.page_setup()
    st.title("Team")
    team, user = team_state.current()
    if team is None or not user.is_admin:
        st.info("Only an admin of a team workspace manages accounts: ask one of your admins.")
        return
    accounts, audit = st.tabs(["Accounts", "Audit log"])
    with accounts:
        accounts_panel(team, user)
    with audit:
        audit_panel(team, user)


with shell.friendly_errors():
    main()
