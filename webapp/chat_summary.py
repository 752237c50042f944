"""Summary requests in chat: "summarise the relocation memo" is answered by the memo's summary.

``summary_answer`` asks ``ragcore.summaries.router`` where a question goes, notes the choice in the
turn's trace (the chat's "How this answer was made" shows it) and, for a summary, answers with
the file's or the index's summary (``webapp.summaries``: cached, extractive offline) instead of
a top-k search; ``routed_reply`` makes it a chat reply (the Query page shows it as the answer).
Questions the router sends to retrieval return None: the engine answers.
"""

from __future__ import annotations

from typing import Any, Sequence

from ragcore.chat.response import ChatResponse
from ragcore.summaries.router import INDEX_SUMMARY, RETRIEVAL, SUMMARY, Route, route_question
from ragcore.trace import Trace
from ragcore.types import Message
from ragcore.workspace.names import display_name
from ragcore.workspace.ingest.index_files import files_of
from ragcore.workspace.summaries import document_names
from webapp import state
from webapp.summaries import file_summary, how_made, index_summary

ROUTE_NOTE = "route"
ROUTE_LABELS = {SUMMARY: "the document's summary", INDEX_SUMMARY: "the index's summary",
                RETRIEVAL: "a search of the passages"}


def route_for(index_name: str, question: str, files: Sequence[str] = ()) -> Route:
    """Where ``question`` goes; with ``files`` chosen, only those files can be named, and a
    summary of "the documents" is the summary of the one chosen file (else a search)."""
    index = state.load_index(index_name)
    names, titles = document_names(index), document_titles(index)
    route = route_question(question, names, titles)
    if not files:
        return route
    if route.kind == SUMMARY and route.document not in files and len(names) > 1:
        return Route(RETRIEVAL, f"names “{names[route.document]}”, which this chat does not "
                                "use (Documents to use): searching the chosen files")
    names = {key: name for key, name in names.items() if key in files}
    route = route_question(question, names, titles)
    if route.kind == INDEX_SUMMARY:
        if len(names) != 1:
            return Route(RETRIEVAL, "asks for a summary of the chosen files: searching them")
        return Route(SUMMARY, "asks for a summary; the chat uses one file", next(iter(names)))
    return route


def document_titles(index: Any) -> dict[str, str]:
    """The titles the index's files carry (an HTML page's, a Word file's ...), by file key."""
    titles = {}
    for row in files_of(index):
        found = (index.doc_info(d).metadata.get("title") for d in row["doc_ids"])
        title = next((str(t) for t in found if t), "")
        if title:
            titles[row["id_base"]] = title
    return titles


def summary_answer(index_name: str, question: str, trace: Trace,
                   files: Sequence[str] = ()) -> str | None:
    """The summary ``question`` asks for, as Markdown (None: it asks for a search)."""
    route = route_for(index_name, question, files)
    trace.notes[ROUTE_NOTE] = route.to_dict()
    if route.kind == RETRIEVAL:
        return None
    with trace.stage("summary", route=route.kind) as detail:
        if route.kind == SUMMARY and route.document is not None:
            summary = file_summary(index_name, route.document, trace=trace)
            heading = f"Summary of {summary.title}"
        else:
            summary = index_summary(index_name, trace=trace)
            shown_as = display_name(state.workspace(), index_name)
            heading = f"Summary of the index “{shown_as}” ({summary.title})"
        detail["method"] = summary.method
    body = summary.text.strip() or "There is no text to summarise."
    return f"**{heading}**\n\n{body}\n\n_{how_made(summary)}_"


def routed_reply(index_name: str, question: str, memory: Any, trace: Trace,
                 files: Sequence[str] = ()) -> ChatResponse | None:
    """The summary reply to ``question`` if it asks for one (None: let the engine answer);
    ``files``: the files the chat may use (none: all)."""
    text = summary_answer(index_name, question, trace, files)
    if text is None:
        return None
    memory.put_user_message(question)
    return ChatResponse.from_text(
        text, trace=trace, mode="summary",
        on_complete=lambda whole: memory.put(Message("assistant", whole)),
    )


# The simple chat mode sends the conversation to the model without searching the documents.
NO_SEARCH_MODES = frozenset({"simple"})
NO_SEARCH_CAPTION = ("Answered from the conversation alone: the simple chat mode does not "
                     "search your documents (choose another chat mode under Advanced to search "
                     "them).")


def route_caption(trace: dict | None) -> str | None:
    """One line saying where a saved turn was routed and why (None for older turns)."""
    route = ((trace or {}).get("notes") or {}).get(ROUTE_NOTE)
    if not route:
        return None
    if route.get("kind") == RETRIEVAL and (trace or {}).get("chat_mode") in NO_SEARCH_MODES:
        return NO_SEARCH_CAPTION
    label = ROUTE_LABELS.get(route.get("kind"), route.get("kind"))
    return f"Answered from {label}: {route.get('reason', '')}."
