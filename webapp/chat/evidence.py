"""The passages found for a question, shown before its answer: evidence first.

The Query page and the Chat page show them the moment the search returns them (the best few,
while the sentences the model reads are chosen), then the passages it reads while it reads them
(tens of seconds with the packaged model on a busy machine); the numbered sources under the
finished answer replace them (``webapp.answers.citing``).
"""

from __future__ import annotations

from typing import Sequence

import streamlit as st

from ragcore.present import format as fmt
from webapp.session import session

PREVIEW_CHARS = 300


READING = "being read by the model:"
# Told while the question waits in line for the model (another question is answered first).
WAITING = "to be read by the model when your turn comes:"
# Told before it is known whether the model reads them at once or after a wait in line.
FOR_THE_MODEL = "for the model to read:"
# Told while the sentences the model reads are chosen from them (a second or two, busy).
CHOOSING = "choosing the sentences the model reads:"


def render_passages_found(sources: Sequence, state: str = READING) -> None:
    """The retrieved passages as soon as they are found, before the answer."""
    if not sources:
        return
    st.markdown(f"**Passages found ({len(sources)})**, {state}")
    for number, scored in enumerate(sources, 1):
        st.caption(fmt.source_label(number, scored, advanced=bool(session.advanced_choice)))
        st.markdown(f"> {fmt.passage_preview(scored.node.text, PREVIEW_CHARS)}")
