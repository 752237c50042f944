"""FigureBodies: a figure's caption is read with the figure it captions.

A PDF's text gives a figure's or a table's body first and its caption after it ("Election
Safety: at most one leader ... §5.4.3 / Figure 3: Raft guarantees that each of these properties
is true at all times."). A question is worded like the caption ("What are the properties Raft
guarantees are true at all times?"), so the search finds the caption's passage; when the chunker
cut between the body and its caption, that passage holds the caption alone and the reader, or
the LLM, sees none of what it speaks of. For a passage whose caption stands within
``CAPTION_LINES`` lines of its start, the text of the node before it (same document, adjacent)
after that node's own last caption is put before it, within ``MAX_BODY`` characters: a copy of
the passage whose ``start_char`` covers what was added. Any other passage passes unchanged.
"""

from __future__ import annotations

import dataclasses
import re

from ..errors import StoreError
from ..postprocess import MAX_GAP, NodeLookup, Postprocessor
from ..types import ScoredNode

CAPTION_LINES = 4  # a caption this near a passage's start: its figure's body is before it
MAX_BODY = 2000  # characters of the figure's body put before its caption
# "Figure 3: ...", "Fig. 2. ...", "Table 1: ..." at a line's start.
CAPTION = re.compile(r"^\s*(?:Figure|Fig\.|Table)\s+\d+[.:]\s", re.MULTILINE)


class FigureBodies(Postprocessor):
    """Each passage opening with a caption, read with the figure's body before it."""

    def __init__(self, index: NodeLookup) -> None:
        self.index = index

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        return [self._with_body(scored) for scored in nodes]

    def _with_body(self, scored: ScoredNode) -> ScoredNode:
        node = scored.node
        if not opens_with_caption(node.text) or node.prev_id is None or node.start_char is None:
            return scored
        try:
            before = self.index.get_node(node.prev_id)
        except StoreError:
            return scored
        if before.start_char is None or before.end_char is None or \
                before.ref_doc_id != node.ref_doc_id or \
                not node.start_char - MAX_GAP <= before.end_char <= node.start_char + len(node.text):
            return scored
        # the node before, up to where this one starts (they may overlap)
        upto = before.text[:max(0, node.start_char - before.start_char)]
        body = figure_body(upto)
        if not body.strip():
            return scored
        gap = node.start_char - (before.start_char + len(upto))  # what the chunker left out
        grown = dataclasses.replace(node, text=f"{body}\n{node.text}",
                                    start_char=max(0, node.start_char - gap - len(body)))
        return dataclasses.replace(scored, node=grown)


def opens_with_caption(text: str) -> bool:
    """Whether a caption that follows its figure stands within ``CAPTION_LINES`` lines of
    ``text``'s start: one that describes it in a sentence ("Figure 3: Raft guarantees that
    each of these properties is true at all times."), as papers put under a figure; not a
    title ("Figure 3: Cyber Supply Chain Relationships", above its figure in a report), nor a
    list of figures' line ("Figure 7: Trust Algorithm Input ........ 18")."""
    caption = CAPTION.search(text)
    if caption is None or text.count("\n", 0, caption.start()) >= CAPTION_LINES:
        return False
    line = text[caption.end():].split("\n", 1)[0]
    words = re.findall(r"[A-Za-z][\w'-]*", line)
    if _LEADERS.search(line) or len(words) < 4:
        return False
    return sum(w[0].isupper() for w in words) < len(words) / 2  # a sentence, not a title


_LEADERS = re.compile(r"\.{4,}|(?:\. ){3,}")


def figure_body(text: str) -> str:
    """What of ``text`` (the node before a caption) can be the figure's body: after its own
    last caption line, if any, and its last ``MAX_BODY`` characters, from a line's start."""
    captions = list(CAPTION.finditer(text))
    if captions:  # the previous figure's caption ends at its first line break
        end = text.find("\n", captions[-1].end())
        text = "" if end == -1 else text[end + 1:]
    if len(text) > MAX_BODY:
        cut = text.find("\n", len(text) - MAX_BODY)
        text = "" if cut == -1 else text[cut + 1:]
    return text.strip("\n")
