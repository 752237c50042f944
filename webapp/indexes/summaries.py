"""The Summarise actions of the Indexes page: a file's summary and the whole index's.

Summaries come from ``ragcore.workspace.summaries`` (made once, cached on disk until the file
or index changes). Offline they are extractive (central sentences quoted from the text, chosen
with the embedding model); with a language model set up in Settings they are written by it.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragcore.present import format as fmt
from ragcore.summaries import DocumentSummary
from ragcore.workspace.names import display_name
from ragcore.workspace.summaries import (
    PgSummaryCache,
    SummaryCache,
    method_of,
    open_summary_cache,
    summarize_file,
    summarize_whole_index,
)
from ragcore.workspace.conversation import how_made
from webapp import state
from webapp.session import session


def cache() -> SummaryCache | PgSummaryCache:
    return open_summary_cache(state.workspace_root())


def file_summary(name: str, key: str, *, trace: Any = None) -> DocumentSummary:
    """The summary of one file of index ``name`` (made now or read from the cache)."""
    ws, index = state.workspace(), state.load_index(name)
    state.ensure_embedder_loaded(index.embedder)
    return summarize_file(cache(), ws.record(name).uid, index, key,
                          llm=summary_llm(), trace=trace)


def index_summary(name: str, *, trace: Any = None) -> DocumentSummary:
    """The summary of the whole index ``name`` (made now or read from the cache)."""
    ws, index = state.workspace(), state.load_index(name)
    state.ensure_embedder_loaded(index.embedder)
    revision = ws.index_version(name).revision
    return summarize_whole_index(cache(), ws.record(name).uid, revision, index,
                                 llm=summary_llm(), trace=trace)


def summary_llm() -> Any:
    """The language model summaries are written with (None: extractive)."""
    llm = state.current_llm()
    return None if method_of(llm) == "extractive" else llm


def show(summary: DocumentSummary) -> None:
    if not summary.text.strip():
        st.info("There is no text to summarise here.")
        return
    st.markdown(fmt.markdown_text(summary.text))
    st.caption(how_made(summary))


def summarise_document(name: str, key: str, row: dict) -> None:
    """A "Summarise" button for one file of the Indexes page, and the summary once made."""
    shown = session.shown_summaries
    if st.button("Summarise", key=f"summarise_{name}_{key}", icon=":material/summarize:",
                 help=f"A short summary of {row['file']}."):
        with st.spinner(f"Summarising {row['file']}…"):
            shown[(name, key)] = file_summary(name, key)
    if (name, key) in shown:
        st.markdown(f"**Summary of {fmt.markdown_text(row['file'])}**")
        show(shown[(name, key)])


def summarise_index(name: str, chunks: int) -> None:
    """A "Summarise this index" button and the summary once made."""
    if not chunks:
        return
    shown = session.shown_summaries
    if st.button("Summarise this index", key=f"summarise_index_{name}",
                 icon=":material/summarize:",
                 help="A short summary of everything this index holds."):
        with st.spinner(f"Summarising “{name}”…"):
            shown[(name, None)] = index_summary(name)
    if (name, None) in shown:
        with st.container(border=True):
            shown_as = display_name(state.workspace(), name)
            st.markdown(f"**Summary of “{fmt.markdown_text(shown_as)}”**")
            show(shown[(name, None)])
