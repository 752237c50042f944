"""Simple by default: the "Advanced" switch that shows modes, search options and traces.

A first-time user sees: pick documents, ask. Response and chat modes, postprocessors, the
search mode, top-k and "how this answer was made" appear when the switch in the sidebar is on.
The choice is remembered in the workspace (``app-preferences.json``), so it survives restarts.
"""

from __future__ import annotations

import streamlit as st

from ragcore.errors import WorkspaceError
from ragcore.workspace.files import read_json
from webapp import preferences, state
from webapp.session import Widget, session

PREFERENCES = "app-preferences.json"
HELP = ("Show the answering modes, how passages are searched, how many are used, and how each "
        "answer was made (the trace).")


def _path():
    return state.workspace_root() / PREFERENCES


def saved_choice() -> bool:
    """Whether Advanced was left on (off for a new workspace or an unreadable file)."""
    path = _path()
    if not path.exists():
        return False
    try:
        data = read_json(path, what="app preferences")
    except WorkspaceError:
        return False
    return bool(isinstance(data, dict) and data.get("advanced"))


def _save() -> None:
    session.advanced_choice = bool(session.widget(Widget.ADVANCED))
    preferences.save(state.workspace_root(), advanced=session.advanced_choice)


def advanced_toggle() -> bool:
    """The sidebar switch; True when the advanced controls should show."""
    # Widget values do not follow the user from page to page (each page's switch is its own
    # widget), so the choice lives in a slot of its own and each page's switch starts from it.
    if session.advanced_choice is None:
        session.advanced_choice = saved_choice()
    session.preset(Widget.ADVANCED, session.advanced_choice)
    return st.toggle("Advanced", key=Widget.ADVANCED, on_change=_save, help=HELP)
