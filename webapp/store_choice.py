"""Where a new index keeps its vectors: the Upload page's store choice.

The default keeps them in the index folder; the others name a Chroma folder, a Chroma server
or a Postgres database with pgvector (``ragcore.stores.locations``). The choice is checked when
the person presses Index, and the index is created with it before its files are ingested.
"""

from __future__ import annotations

import streamlit as st

from ragcore.stores.locations import KINDS

DEFAULT = "In the index folder (default)"
PLACEHOLDERS = {
    "chroma": "chroma:/data/chroma",
    "chroma+http": "chroma+http://127.0.0.1:8000",
    "postgresql": "postgresql://ragcore@127.0.0.1:5432/ragcore",
}
HELP = ("Postgres passwords are never saved: set RAGCORE_PG_PASSWORD (or PGPASSWORD) for the "
        "app, or include it in the URL for this session only.")


def pick_store() -> str:
    """The store location the person typed for a new index ('' for the default)."""
    labels = {DEFAULT: ""} | {label: kind for kind, label in KINDS.items()}
    choice = st.selectbox("Where to keep the vectors", list(labels),
                          help="Chroma and Postgres keep the vectors outside the index folder, "
                          "for corpora larger than one machine's memory.")
    kind = labels[choice]
    if not kind:
        return ""
    return st.text_input("Store location", placeholder=PLACEHOLDERS[kind], help=HELP).strip()
