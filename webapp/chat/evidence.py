"""The passages found for a question, shown before its answer: evidence first.

The Query page and the Chat page show them the moment the search returns them (the best few,
while the sentences the model reads are chosen), then the passages it reads while it reads them
(tens of seconds with the packaged model on a busy machine); the numbered sources under the
finished answer replace them (``webapp.answers.citing``). A list is one Markdown element
(``passages_found``), so a shorter one drawn in the place of a longer one leaves nothing of it.
"""

from __future__ import annotations

from typing import Sequence

from ragcore.present import format as fmt
from webapp.indexes.document_view import card_name, is_card
from webapp.session import session

PREVIEW_CHARS = 300


READING = "being read by the model:"
# Told while the question waits in line for the model (another question is answered first).
WAITING = "to be read by the model when your turn comes:"
# Told before it is known whether the model reads them at once or after a wait in line.
FOR_THE_MODEL = "for the model to read:"
# Told while the sentences the model reads are chosen from them (a second or two, busy).
CHOOSING = "choosing the sentences the model reads:"


def passages_found(sources: Sequence, state: str = READING) -> str:
    """The retrieved passages as soon as they are found, before the answer, as one Markdown
    text: "**Passages found (2)**, ``state``", then each one's file (its score under Advanced)
    and the start of its text, quoted ("…" where the reading or the room cut it)."""
    advanced = bool(session.advanced_choice)
    parts = [f"**Passages found ({len(sources)})**, {state}"]
    for number, scored in enumerate(sources, 1):
        label = (f"{number}. {card_name(scored)}" if is_card(scored) else
                 fmt.source_label(number, scored, advanced=advanced))
        parts.append(_small(label))
        parts.append(f"> {fmt.node_preview(scored.node, PREVIEW_CHARS)}")
    return "\n\n".join(parts)


def _small(label: str) -> str:
    """``label`` ("1. a.pdf · page 2") as small grey text: never a list, a link or a formula."""
    for mark in ("\\", "[", "]", "$"):
        label = label.replace(mark, "\\" + mark)
    number, _, rest = label.partition(". ")  # "1\\. a.pdf": not an ordered list
    return f":small[:gray[{number}\\. {rest}]]"
