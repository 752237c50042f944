"""Which documents a chat's questions may use: all of the index's files, or the ones chosen.

The choice is a list of file keys (``files_of`` id bases) kept in the chat's settings under
``SCOPE_SETTING``, so a saved chat reopens with it. ``ScopedIndex`` applies it where every
search starts: each retriever made from the index (the standard one and those the advanced
retrievers wrap) is given the chosen files' document ids, so no passage of another file can
reach the answer, whatever the retriever or chat mode.
"""

from __future__ import annotations

from typing import Any

from ragcore.workspace.ingest import files_of
from webapp.team import team_state
from webapp.session import Widget, session

SCOPE_SETTING = "files"


def file_names(index: Any) -> dict[str, str]:
    """The index's files: key -> file name, sorted by name (what the chooser lists)."""
    rows = sorted(files_of(index), key=lambda row: row["file"].lower())
    return {row["id_base"]: row["file"] for row in rows}


def chosen_files(chat: Any, index: Any) -> list[str]:
    """The chat's chosen file keys that the index still holds (empty: every file)."""
    known = file_names(index)
    return [key for key in chat.settings.get(SCOPE_SETTING, []) if key in known]


def scope_doc_ids(index: Any, files: list[str]) -> list[str] | None:
    """The document ids of ``files`` (None: no choice, every document may be used)."""
    if not files:
        return None
    wanted = set(files)
    return [doc_id for row in files_of(index) if row["id_base"] in wanted
            for doc_id in row["doc_ids"]]


class ScopedIndex:
    """``index`` whose retrievers search only the documents ``doc_ids`` (everything else is
    the index's own: nodes, embedder, keyword postings)."""

    def __init__(self, index: Any, doc_ids: list[str]) -> None:
        if not doc_ids:
            raise ValueError("a scoped index needs at least one document id: choose a file")
        self._index, self.doc_ids = index, list(doc_ids)

    def as_retriever(self, **options: Any) -> Any:
        if options.get("doc_ids") is not None:
            raise ValueError("this index is already scoped to chosen documents")
        return self._index.as_retriever(**options, doc_ids=self.doc_ids)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


def scoped(index: Any, files: list[str]) -> Any:
    """``index`` limited to ``files`` (the index itself when none is chosen)."""
    doc_ids = scope_doc_ids(index, files)
    return index if doc_ids is None else ScopedIndex(index, doc_ids)


def scope_select(ws: Any, chat: Any, index: Any) -> list[str]:
    """The chooser of the files this chat may use (none chosen: all); saved with the chat."""
    import streamlit as st

    names = file_names(index)
    key = Widget.chat_scope(chat.id)
    kept = session.widget(key, chosen_files(chat, index))
    session.preset(key, [name for name in kept if name in names])
    picked = st.multiselect(
        "Documents to use", list(names), key=key, format_func=names.get,
        placeholder="All documents",
        help="Questions in this chat are answered from these files only; leave it empty to "
             "use every document of the index.")
    if picked != chat.settings.get(SCOPE_SETTING, []):
        chat.settings[SCOPE_SETTING] = list(picked)
        if ws.has_chat(chat.id):
            team_state.save_chat(ws, chat)
    return picked
