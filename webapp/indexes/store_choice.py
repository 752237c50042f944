"""Where a new index keeps its vectors: the Upload page's store choice (under Advanced).

The default keeps them in the index folder; the others name a Chroma folder, a Chroma server
or a Postgres database with pgvector (``ragcore.stores.locations``). With
``$RAGCORE_DATABASE_URL`` set, "In the database" keeps the whole index there, where every app
server and worker sees it (the first choice when ``$RAGCORE_INDEX_HOME`` is ``database``). The
choice is checked when the person presses Index, and the index is created with it before its
files are ingested.
"""

from __future__ import annotations

import streamlit as st

from ragcore.stores.locations import KINDS
from ragcore.workspace.database_indexes import DATABASE, database_url, default_store

DEFAULT = "In the index folder (default)"
IN_DATABASE = "In the database (every server and worker sees the whole index)"
PLACEHOLDERS = {
    "chroma": "chroma:/data/chroma",
    "chroma+http": "chroma+http://127.0.0.1:8000",
    "postgresql": "postgresql://ragcore@127.0.0.1:5432/ragcore",
}
HELP = ("Postgres passwords are never saved: set RAGCORE_PG_PASSWORD (or PGPASSWORD) for the "
        "app, or include it in the URL for this session only.")


def default_location() -> str:
    """The store a new index gets without a choice (Advanced off): the first one offered."""
    return DATABASE if database_url() and default_store(None) == DATABASE else ""


def pick_store() -> str:
    """The store location the person typed for a new index ('' for the default)."""
    labels = {DEFAULT: ""} | {label: kind for kind, label in KINDS.items()}
    if database_url():
        first = {IN_DATABASE: DATABASE} if default_store(None) == DATABASE else {}
        labels = first | labels | {IN_DATABASE: DATABASE}
    choice = st.selectbox("Where to keep the index", list(labels),
                          help="Chroma and Postgres keep what the search reads (each "
                          "passage's meaning as numbers) outside the index folder, for "
                          "document collections larger than one machine's memory.")
    kind = labels[choice]
    if kind in ("", DATABASE):
        return kind
    return st.text_input("Store location", placeholder=PLACEHOLDERS[kind], help=HELP).strip()
