"""OrdinalItems: a list told in prose is read with all its items.

A speech or an article lists in paragraphs: "Here are four common sense steps as we move
forward safely. First, stay protected with vaccines and treatments." in one chunk, then,
pages on, paragraphs opening "Second – we must prepare for new variants.", "Third – ...",
"Fourth, ...". A search for "What are the four steps ...?" finds the first chunk; the later
items share none of the question's words, and a reader model lists the first item's
neighbouring sentences as the other three.

For a list question (``grounding.kinds``), each passage read that holds a sentence opening
with "First" (an ordinal and a comma, dash or colon: not "First Lady") is followed by the
sentences opening with the next ordinals ("And fourth, ..." too) that it lacks, from the rest
of its chunk and the chunks after it, at most ``WALKED_CHARS`` characters (a quarter of that
when no count is announced), until the count announced ("four ... steps") is reached. Each is a
passage of its own citing the chunk it comes from, past any reading budget, as the sentence
spelling out an acronym is (``acronyms``). Any other question passes through unchanged. No
model: the items are the document's own sentences, found by their form.
"""

from __future__ import annotations

import re
from typing import Protocol

from ..chunking import sentences
from ..errors import StoreError
from ..grounding.numbers import NUMBER_WORDS
from ..grounding.kinds import QuestionKind, question_kind
from ..postprocess import Postprocessor
from ..types import Node, ScoredNode

ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
            "ninth", "tenth")
COUNTS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
WALKED_CHARS = 12_000  # of the chunks after a list's first item searched for its others
ORDINAL_SUFFIX = "#ordinal-"
_OPENS = re.compile(r"^\W*(?:and\s+|finally\s*,?\s*)?(" + "|".join(ORDINALS) +
                    r")(?:\s+of\s+all)?\s*[,:;\u2013\u2014-]", re.IGNORECASE)
# "four common sense steps", "Four big things": a count and the plural it counts.
_ANNOUNCED = re.compile(r"\b(" + "|".join(COUNTS) + r"|[2-9]|10)\s+(?:[\w-]+\s+){0,3}?"
                        r"[a-z][\w-]*[a-z]s\b", re.IGNORECASE)


class NodeLookup(Protocol):
    def get_node(self, node_id: str) -> Node: ...


def ordinal(sentence: str) -> int | None:
    """The place a sentence opening with an ordinal gives ("Second – we must ..." 2), else
    None."""
    match = _OPENS.match(sentence)
    return int(NUMBER_WORDS[match.group(1).lower()]) if match else None


class OrdinalItems(Postprocessor):
    """Follows a passage holding a prose list's first item with its later items (see the
    module docstring)."""

    def __init__(self, index: NodeLookup, *, walked_chars: int = WALKED_CHARS) -> None:
        self.index = index
        self.walked_chars = walked_chars

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        if question_kind(query) is not QuestionKind.LIST:
            return nodes
        seen = {scored.node.node_id for scored in nodes}
        read: list[ScoredNode] = []
        for scored in nodes:
            read.append(scored)
            for item in self._later_items(scored.node):
                if item.node_id not in seen:
                    seen.add(item.node_id)
                    read.append(ScoredNode(item, scored.score))
        return read

    def _later_items(self, node: Node) -> list[Node]:
        """The items after the first that ``node`` (as read: perhaps cut to a budget) lacks,
        from the rest of its chunk and the chunks after it; [] unless it holds a first item."""
        if not any(ordinal(part.strip()) == 1 for part in sentences(node.text)):
            return []
        try:
            current = self.index.get_node(node.node_id)  # the chunk whole
        except StoreError:
            current = node
        parts = [part.strip() for part in sentences(current.text)]
        places = [ordinal(part) for part in parts]
        if 1 not in places:
            return []
        start = places.index(1)
        count = _announced_count(parts[max(0, start - 2):start + 1])
        limit = self.walked_chars if count else self.walked_chars // 4
        count = count or len(ORDINALS)
        items: list[Node] = []
        wanted, walked, parts = 2, 0, parts[start + 1:]
        while True:
            for part in parts:
                if wanted <= count and ordinal(part) == wanted:
                    if part not in node.text:
                        items.append(current.quoting(part, f"{ORDINAL_SUFFIX}{wanted}"))
                    wanted += 1
            walked += len(current.text)
            if wanted > count or walked >= limit or not current.next_id:
                return items
            try:
                current = self.index.get_node(current.next_id)
            except StoreError:
                return items
            if current.ref_doc_id != node.ref_doc_id:
                return items
            parts = [part.strip() for part in sentences(current.text)]


def _announced_count(parts: list[str]) -> int | None:
    """The count the sentences leading to a list's first item announce ("Here are four common
    sense steps"), the last one said; None when none is."""
    counts = [m.group(1).lower() for part in parts for m in _ANNOUNCED.finditer(part)]
    if not counts:
        return None
    said = counts[-1]
    return int(NUMBER_WORDS.get(said) or said)
