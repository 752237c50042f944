"""A summary reply in Chat: shown as it comes, and an offer of a fresh one under a kept one.

A summary is not checked against passages (``webapp.chat.turn_view`` draws an answer's draft
and check): a kept one (the document's abstract, a summary written before) is one chunk, shown
at once; a fresh one streams part by part under a line saying how far the model has read
(``ragcore.summaries.parts.reading_line``), redrawn while the model reads in silence so Stop
acts at once. Under a kept summary, a button asks for a fresh one.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import streamlit as st

from ragcore.chat import Checked
from ragcore.chat import pulled
from ragcore.present import format as fmt
from ragcore.summaries import READ_NOTE, reading_line
from ragcore.workspace.conversation import OFFER_NOTE
from webapp.session import session

FRESH_LABEL = "Write a fresh summary"
FRESH_HELP = ("The model reads the document part by part and writes a summary of each part as "
              "it goes (minutes on this computer); you can stop it between parts.")


def is_summary(response: Any) -> bool:
    return getattr(response, "mode", "") == "summary"


def follow_summary(turn: Any, response: Any, chunks: Iterable[str], *,
                   check: Callable[[str], Any]) -> Checked:
    """Draw the summary in ``turn`` as it comes; ``check``: the whole text -> what is shown."""
    turn.clock.hide()  # the search's seconds end: its line goes
    turn.evidence.empty()
    text = ""
    for chunk in pulled(chunks):
        read = response.trace.notes.get(READ_NOTE)
        if read is not None:  # a fresh one: how far the model has read
            turn.reading.caption(f":material/menu_book: {reading_line(read)}")
        if chunk:
            text += chunk
            turn.draft.markdown(fmt.draft_markdown(text))  # no literal ** while it streams
    turn.stop.empty()
    return Checked(text, check(text))


def offer_fresh(message: Any, key: str, *, shown: bool = True) -> Any:
    """Under a kept summary: a button asking the model for a fresh one (none under a fresh one,
    or when no model can write one; none unless ``shown``), in the slot returned (a reply made
    after it empties it). The slot is there either way, so what follows it is drawn where it
    was in the run before (else left there greyed)."""
    slot = st.empty()
    notes = (message.trace or {}).get("notes") or {}
    offer = notes.get(OFFER_NOTE)
    if not shown or not offer or READ_NOTE in notes:
        return slot
    slot.button(FRESH_LABEL, key=f"fresh_{key}", icon=":material/edit_note:", help=FRESH_HELP,
              on_click=_queue, args=(offer,))
    return slot


def _queue(question: str) -> None:
    session.queued_question = question
