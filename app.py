"""ragcore's web app: upload documents, manage indexes, query, chat, settings.

Run with `make run` (that is `streamlit run app.py`). This file only sets up the navigation
(the page list is ``webapp.shell.PAGES``) behind the sign-in gate: in single-user mode (no
``RAGCORE_AUTH``) the gate asks nobody and shows nothing; in team mode it shows the set-up or
sign-in form until someone is signed in, and the pages ask the policy through
``webapp.team.team_state`` (docs/teams.md). Each page lives in pages/ and every behaviour in the
ragcore package.
"""

from webapp import state
from webapp.team import sign_in, team_state
from webapp.shell import friendly_errors, navigation, page_config
from webapp.state import warm_up_embedder

page_config()
sign_in.check_address()  # single-user mode on a network address: stop with the reason
team, user = sign_in.gate(state.workspace_root())  # stops while nobody is signed in
team_state.remember(team, user)
page = navigation(admin=team is not None and user.is_admin)
sign_in.account_menu(team, user)
with friendly_errors():  # an error on any page is shown in plain words, never as a traceback
    page.run()
warm_up_embedder()  # after the page is on screen, so the first view is not slowed
