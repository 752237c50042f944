"""The name box for a new index: any name people would type, with the reason it cannot be used.

The typed name ("Dossiers été 2024") is shown everywhere; the index folder gets a safe name that
never changes (``ragcore.workspace.names.free_folder``). While the typed name cannot be used, the
reason shows under the box and the page's Index button stays disabled (its caller gets "").
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragcore.workspace.names import (
    clean_display,
    display_name,
    folder_of,
    free_folder,
    name_problem,
    set_display_name,
    shown_names,
)
from webapp.team import team_state
from webapp.session import Widget, session


def new_index_name(ws: Any) -> str:
    """The name box; returns the folder name of a usable new name, else ""."""
    typed = st.text_input("Name of the new index", placeholder="e.g. Contracts 2024",
                          key=Widget.NEW_INDEX_NAME, help="Any name: spaces and accents are fine.")
    team, _ = team_state.current()  # in team mode: only names this person may see are taken
    seen = shown_names(ws) if team is None else [
        display_name(ws, n) for n in team_state.listed(ws, ws.index_names())]
    problem = name_problem(typed, seen)
    if problem and typed.strip():
        st.caption(f":material/error: {problem} The Index button waits for a usable name.")
        return ""
    if problem:
        return ""
    folder = free_folder(ws, typed)
    if folder != clean_display(typed) and team is None:  # a -2 would tell of another's index
        st.caption(f"It will be saved in the folder “{folder}”.")
    return folder


def remember_display_name(ws: Any, folder: str) -> None:
    """Keep the typed name of the index just created in ``folder``."""
    typed = session.widget(Widget.NEW_INDEX_NAME, "")
    if typed and folder_of(typed, folder) and display_name(ws, folder) == folder:
        set_display_name(ws, folder, typed)


def shown_name(ws: Any):
    """A ``format_func`` for index selectboxes: the typed name of each index."""
    return lambda name: display_name(ws, name)
