"""A chat turn as the app runs it: memory from a saved chat, a streamed reply, the turn recorded.

The saved chat (``ragcore.workspace.chats.SavedChat``) is the history of record; the engine's
``ChatMemory`` is rebuilt from it when a chat is opened and again after a failed turn, so a
failure never leaves a half-finished exchange in either. A turn is recorded only once its reply
has streamed to the end.
"""

from __future__ import annotations

from typing import Any, Callable

from ragcore.chat.titles import key_phrase_title
from ragcore.memory import ChatMemory
from ragcore.types import Message, Node, ScoredNode
from ragcore.workspace.chats import ChatMessage, ChatSource, SavedChat
from ragcore.present.answer_score import (
    THRESHOLD_KEY,
    TRACE_KEY,
    not_found_threshold,
    ranked_with,
    score_sentence,
    stated_score,
)
from ragcore.present.trace_view import compact_trace

DEFAULT_RETRIEVAL_MODE = "similarity"


def memory_for_chat(chat: SavedChat, llm: Any) -> ChatMemory:
    """A fresh engine memory holding the chat's user and assistant messages, in order."""
    memory = ChatMemory.from_llm(llm)
    for message in chat.messages:
        if message.role in ("user", "assistant"):
            memory.put(Message(message.role, message.content))
    return memory


def start_chat(
    index: str, chat_mode: str, *, llm_label: str, settings: dict[str, Any]
) -> SavedChat:
    """A new, empty chat over ``index`` (saved once its first turn is answered)."""
    return SavedChat(index=index, chat_mode=chat_mode, llm=llm_label, settings=dict(settings))


def record_turn(
    chat: SavedChat,
    question: str,
    response: Any,
    *,
    chat_mode: str,
    llm_label: str,
    settings: dict[str, Any],
) -> ChatMessage:
    """Append the question and the finished reply (with sources and a compact trace). The
    extractive answerer's score stays in the trace, as it was stated (never in the text)."""
    if not getattr(response, "done", True):
        raise ValueError("record_turn needs a reply that has streamed to the end")
    score = stated_score(response.trace)
    trace = compact_trace(response.trace)
    if score is not None:
        trace[TRACE_KEY] = score
        trace[THRESHOLD_KEY] = not_found_threshold(ranked_with(
            settings.get("embed_model"), settings.get("retrieval_mode", DEFAULT_RETRIEVAL_MODE)))
    trace["chat_mode"] = chat_mode
    # The search that found this turn's sources: its scores decide which are shown by default.
    trace["retrieval_mode"] = settings.get("retrieval_mode", DEFAULT_RETRIEVAL_MODE)
    chat.chat_mode, chat.llm = chat_mode, llm_label
    chat.settings = {**chat.settings, **settings}  # the chosen files, dropped files stay
    chat.add_message("user", question)
    return chat.add_message(
        "assistant", response.text, sources=response.source_nodes, trace=trace
    )


def record_stopped_turn(
    chat: SavedChat, question: str, text: str, response: Any, *, settings: dict[str, Any]
) -> ChatMessage:
    """Append the question and the part of its reply written before Stop was pressed
    (``response`` None: stopped before the reply began)."""
    trace = compact_trace(response.trace) if response is not None else {}
    trace["chat_mode"] = settings.get("chat_mode", chat.chat_mode)
    trace["retrieval_mode"] = settings.get("retrieval_mode", DEFAULT_RETRIEVAL_MODE)
    trace["stopped_by_user"] = True
    chat.settings = {**chat.settings, **settings}
    titled = bool(chat.title)
    chat.add_message("user", question)
    if not titled:  # as a finished first exchange is titled offline: its key phrases
        chat.title = key_phrase_title(question, text)
    sources = response.source_nodes if response is not None else []
    return chat.add_message("assistant", text.rstrip() + " …" if text.strip() else "…",
                            sources=sources, trace=trace)


def turn_score(message: ChatMessage) -> str:
    """The score the answerer stated for a saved reply, in words ("" for none)."""
    trace = message.trace or {}
    score = trace.get(TRACE_KEY)
    return score_sentence(None if score is None else float(score), trace.get(THRESHOLD_KEY))


def turn_retrieval_mode(message: ChatMessage) -> str:
    """How the sources of a saved reply were searched (by meaning for chats saved before)."""
    return (message.trace or {}).get("retrieval_mode") or DEFAULT_RETRIEVAL_MODE


def clear_chat(chat: SavedChat) -> SavedChat:
    """The same chat (id, index, settings) with its history emptied."""
    chat.messages.clear()
    chat.title = ""
    return chat


def source_passage(source: ChatSource, lookup: Callable[[str], Node | None]) -> ScoredNode:
    """A saved source as a passage: the index's node if it still has it, else the saved text."""
    node = lookup(source.node_id) if source.node_id else None
    if node is None:
        metadata = {"file_name": source.file_name}
        if source.page is not None:
            metadata["page_label"] = source.page
        node = Node(source.text, ref_doc_id=source.doc_id, metadata=metadata)
    return ScoredNode(node, source.score)
