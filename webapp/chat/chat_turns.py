"""A saved chat turn as the pages show it: its score in words, how its sources were searched,
where its question was routed, and its sources as passages.

The turn itself (route, answer, record) is ``ragcore.workspace.conversation``; this module only
reads what a recorded turn keeps.
"""

from __future__ import annotations

from typing import Callable

from ragcore.present.answer_score import THRESHOLD_KEY, TRACE_KEY, score_sentence
from ragcore.summaries import INDEX_SUMMARY, RETRIEVAL, SUMMARY
from ragcore.types import Node, ScoredNode
from ragcore.workspace.chats import ChatMessage, ChatSource
from ragcore.workspace.conversation import DEFAULT_RETRIEVAL_MODE, NO_SEARCH_MODES, ROUTE_NOTE
from ragcore.workspace.conversation import sourceless_reply as shown_sourceless

ROUTE_LABELS = {SUMMARY: "the document's summary", INDEX_SUMMARY: "the index's summary",
                RETRIEVAL: "a search of the passages"}
NO_SEARCH_CAPTION = ("Answered by the model alone: “Just the model, no documents” does not "
                     "search your documents (choose another chat mode to search them).")


def turn_score(message: ChatMessage) -> str:
    """The score the answerer stated for a saved reply, in words ("" for none)."""
    trace = message.trace or {}
    score = trace.get(TRACE_KEY)
    return score_sentence(None if score is None else float(score), trace.get(THRESHOLD_KEY))


def turn_retrieval_mode(message: ChatMessage) -> str:
    """How the sources of a saved reply were searched (by meaning for chats saved before)."""
    return (message.trace or {}).get("retrieval_mode") or DEFAULT_RETRIEVAL_MODE


def route_caption(trace: dict | None) -> str | None:
    """One line saying where a saved turn was routed and why (None for older turns)."""
    route = ((trace or {}).get("notes") or {}).get(ROUTE_NOTE)
    if not route:
        return None
    if route.get("kind") == RETRIEVAL and (trace or {}).get("chat_mode") in NO_SEARCH_MODES:
        return NO_SEARCH_CAPTION
    label = ROUTE_LABELS.get(route.get("kind"), route.get("kind"))
    return f"Answered from {label}: {route.get('reason', '')}."


def asked_before(chat, number: int) -> str:
    """The question the reply at ``number`` answers: the user message before it."""
    for message in reversed(chat.messages[:number]):
        if message.role == "user":
            return message.content
    return ""


def checked_against(chat, number: int) -> str:
    """The question the reply at ``number`` is checked against: the standalone question a
    follow-up was rewritten to, if it was ("And if q is 0.40?" stands for one), else as asked."""
    reply = chat.messages[number] if number < len(chat.messages) else None
    return (condensed_question(reply.trace) if reply is not None else "") or asked_before(
        chat, number)


def condensed_question(trace: dict | None) -> str:
    """The standalone question a follow-up was rewritten to for the search ("" if none)."""
    return str(((trace or {}).get("notes") or {}).get("condensed_question") or "")


def sourceless_reply(text: str, trace: dict | None) -> str:
    """A saved reply without sources as shown (``conversation.sourceless_reply``)."""
    return shown_sourceless(text, (trace or {}).get("notes") or {}, (trace or {}).get("chat_mode"))


def people_caption(trace: dict | None) -> str | None:
    """What a person needs to know of the route: only that the documents were not searched
    (the route and its reason are the trace's, shown under Advanced)."""
    route = ((trace or {}).get("notes") or {}).get(ROUTE_NOTE) or {}
    if route.get("kind") == RETRIEVAL and (trace or {}).get("chat_mode") in NO_SEARCH_MODES:
        return NO_SEARCH_CAPTION
    return None


def source_passage(source: ChatSource, lookup: Callable[[str], Node | None]) -> ScoredNode:
    """A saved source as a passage: the index's node if it still has it, else the saved text."""
    node = lookup(source.node_id) if source.node_id else None
    if node is None:
        metadata = {"file_name": source.file_name}
        if source.page is not None:
            metadata["page_label"] = source.page
        # its id kept: a document's card (never an index node) is known by it
        node = Node(source.text, ref_doc_id=source.doc_id, metadata=metadata,
                    **({"node_id": source.node_id} if source.node_id else {}))
    return ScoredNode(node, source.score)
