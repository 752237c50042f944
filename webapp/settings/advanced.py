"""Simple by default: the "Advanced" switch that shows modes, search options and traces.

A first-time user sees: pick documents, ask. Response and chat modes, postprocessors, the
search mode, top-k and "how this answer was made" appear when the switch in the sidebar is on.
The choice is remembered in the workspace (``app-preferences.json``), so it survives restarts;
pages without the switch read it with ``shell.advanced_on``.
"""

from __future__ import annotations

import streamlit as st

from webapp import preferences, shell, state
from webapp.session import Widget, session

HELP = ("Show the answering modes, how passages are searched, how many are used, and how each "
        "answer was made (the trace).")


def _save() -> None:
    session.advanced_choice = bool(session.widget(Widget.ADVANCED))
    preferences.save(state.workspace_root(), advanced=session.advanced_choice)


def advanced_toggle() -> bool:
    """The sidebar switch; True when the advanced controls should show."""
    # Widget values do not follow the user from page to page (each page's switch is its own
    # widget), so the choice lives in a slot of its own and each page's switch starts from it.
    session.preset(Widget.ADVANCED, shell.advanced_on())
    return st.toggle("Advanced", key=Widget.ADVANCED, on_change=_save, help=HELP)
