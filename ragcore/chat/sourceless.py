"""What a person is shown of a chat reply without sources, wherever it is shown (the Chat page,
``ragcore chat``, a chat engine's ``ChatResponse.shown``): an agent's answer no tool backed (one
that never searched says so in those words: the agent decides whether to search), and a reply
that read no passage (from the conversation's memory), each said so first; a summary's reply,
and the model-alone mode (which says so where it is chosen), as written."""

from __future__ import annotations

from typing import Any, Mapping

from ..grounding.text import without_markers
from ..present.grounded import unobserved, unread
from ..summaries import INDEX_SUMMARY, SUMMARY

ROUTE_NOTE = "route"  # in a turn's trace notes: where its question went, and why
# An agent's answer given without a single tool call: it chose not to search.
UNSEARCHED = ("**Not from the documents:** the agent answered without searching your "
              "documents, so this answer is the model's own.")
# The simple chat mode sends the conversation to the model without searching the documents.
NO_SEARCH_MODES = frozenset({"simple"})


def sourceless_reply(text: str, notes: Mapping[str, Any], chat_mode: str | None) -> str:
    """``text``, a reply with no sources, as shown: ``notes`` are its trace's notes,
    ``chat_mode`` the mode that answered it."""
    if (notes.get("agent_verdict") or {}).get("label") == "unobserved":
        steps = notes.get("reasoning") or ()  # every step it took, its answer's included
        if steps and not any(step.get("action") for step in steps):
            return f"{UNSEARCHED}\n\n{without_markers(text)}" if text.strip() else text
        return unobserved(text)
    return text if written_as_is(notes, chat_mode) else unread(text)


def written_as_is(notes: Mapping[str, Any], chat_mode: str | None) -> bool:
    """Whether a reply without sources is shown as written, known before it streams: a summary
    (routed to one, ``notes``) or the model-alone mode."""
    kind = (notes.get(ROUTE_NOTE) or {}).get("kind")
    return kind in (SUMMARY, INDEX_SUMMARY) or chat_mode in NO_SEARCH_MODES
