"""DocumentCards: a question about a document itself is answered from the document's card.

"Who wrote this paper?" retrieves the passages where the paper names people: its reference
list and acknowledgements, full of other authors, so a reader model picks one of them. Each
document's card (title, authors, date, kind, abstract: ``ragcore.cards``) rides on every node
of it, made when it was read; when ``asks_about_document`` says the question is about the
document, this postprocessor puts the cards of the retrieved documents first, as passages
of plain sentences ("Authors: Murugiah Souppaya, Karen Scarfone and Donna Dodson."). Any other
question, and nodes indexed before cards (they carry none), pass through unchanged.

The documents are the files the nodes come from (a PDF's pages are one document): those the
question names (by kind, number, title or file name) if any, else all, the one with the most
retrieved nodes first, at most ``max_cards`` of them; none when the question names a document
that no retrieved node is from. A card passage scores the best retrieved score.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from ..cards import DocumentCard, asks_about_document, card_from_metadata, card_text
from ..cards.questions import named_documents
from ..errors import ConfigError, StoreError
from ..postprocess import Postprocessor
from ..types import Node, ScoredNode

CARD_SUFFIX = "#card"
# A part's id suffix (``readers.part``): the pages of a PDF are parts of one document.
_PART_SUFFIX = re.compile(r"#(?:page|line)=\d+$")
_SOURCE_KEYS = ("file_name", "file_path", "file_type")
_NUMBER = re.compile(r"\d+(?:-\d+)+|\d{3,}")


@dataclass(slots=True)
class _Found:
    """One retrieved document: its card, its best node, how many of its nodes came back."""

    card: DocumentCard
    best: ScoredNode
    rank: int
    count: int = 0
    file_name: str = field(default="")


class KeywordIndex(Protocol):
    def keyword_search(self, query: str, *, top_k: int = 4) -> list[ScoredNode]: ...


SEARCHED = 8  # nodes the keyword search reads for a named document none retrieved is from


class DocumentCards(Postprocessor):
    """Puts the retrieved documents' cards first when the question asks about a document.

    With ``index`` (one offering ``keyword_search``), a question naming a document that no
    retrieved node is from ("When was RFC 3986 published?" answered from RFC 2616's reference
    list) finds it by its name among the index's words, and reads its card.
    """

    def __init__(self, index: KeywordIndex | None = None, *, max_cards: int = 2) -> None:
        if not isinstance(max_cards, int) or isinstance(max_cards, bool) or max_cards < 1:
            raise ConfigError(f"max_cards ({max_cards!r}) must be a whole number of at least 1, "
                              "e.g. 2")
        self.index = index
        self.max_cards = max_cards

    def postprocess(self, nodes: list[ScoredNode], query: str) -> list[ScoredNode]:
        found = _documents(nodes)
        titles = [f.card.title for f in found.values() if f.card.title]
        asked = named_documents(query)
        if not (found or asked) or not asks_about_document(query, titles=titles):
            return nodes
        named = {doc_id: f for doc_id, f in found.items() if _named(f, query)}
        best = _best_score(nodes)
        if not named and asked:  # a document none retrieved is from: search for its name
            named = {doc_id: f for doc_id, f in _documents(self._searched(asked, best)).items()
                     if _named(f, query)}
            if not named:
                return nodes
        order = sorted((named or found).items(), key=lambda item: (-item[1].count, item[1].rank))
        cards = [_card_node(doc_id, f, best) for doc_id, f in order[: self.max_cards]]
        return [*cards, *nodes]

    def _searched(self, names: tuple[str, ...], best: float | None) -> list[ScoredNode]:
        """The nodes the index's keyword search finds for the named documents, scored ``best``
        (the best retrieved score, as any card is)."""
        if self.index is None:
            return []
        try:
            hits = self.index.keyword_search(" ".join(names), top_k=SEARCHED)
        except StoreError:  # an index whose keywords cannot be read: no card
            return []
        return [ScoredNode(hit.node, best) for hit in hits]


def _best_score(nodes: list[ScoredNode]) -> float | None:
    scores = [n.score for n in nodes if n.score is not None]
    return max(scores) if scores else None


def _documents(nodes: list[ScoredNode]) -> dict[str, _Found]:
    """The documents of ``nodes`` that carry a card, by document id, in retrieval order."""
    found: dict[str, _Found] = {}
    present = {n.node.node_id for n in nodes}
    for rank, scored in enumerate(nodes):
        node = scored.node
        doc_id = document_id(node)
        if doc_id is None or node.node_id.endswith(CARD_SUFFIX) or doc_id + CARD_SUFFIX in present:
            continue  # a card passage, or the nodes of a document whose card is already in
        entry = found.get(doc_id)
        if entry is None:
            card = card_from_metadata(node.metadata)
            if card is None:
                continue
            entry = found[doc_id] = _Found(card, scored, rank,
                                           file_name=str(node.metadata.get("file_name", "")))
        entry.count += 1
    return found


def document_id(node: Node) -> str | None:
    """The id of the document (the file) a node belongs to: its ``ref_doc_id`` without a
    part's ``#page=N``, else its file path."""
    if node.ref_doc_id:
        return _PART_SUFFIX.sub("", node.ref_doc_id)
    path = node.metadata.get("file_path")
    return str(path) if path else None


def _named(found: _Found, query: str) -> bool:
    """Whether the question names this document: by its kind ("PEP 8"), a number of its kind
    or file name ("800-218", "2616"), its main title or its file name."""
    text = " ".join(query.lower().split())
    card, name = found.card, found.file_name.lower()
    if any(_says(text, known) for known in (card.kind.lower(), name) if known):
        return True
    main = " ".join(card.title.split(":")[0].lower().split())
    if len(main) >= 8 and main in text:
        return True
    asked = set(_NUMBER.findall(" ".join(named_documents(query))))
    return bool(asked & set(_NUMBER.findall(f"{card.kind} {name}")))


def _says(text: str, words: str) -> bool:
    """``words`` in ``text`` as whole words ("pep 8" is not in "pep 88")."""
    return re.search(rf"(?<!\w){re.escape(words)}(?!\w)", text) is not None


def _card_node(doc_id: str, found: _Found, score: float | None) -> ScoredNode:
    source = found.best.node
    node = Node(
        text=card_text(found.card),
        node_id=doc_id + CARD_SUFFIX,
        ref_doc_id=source.ref_doc_id,
        metadata={k: source.metadata[k] for k in _SOURCE_KEYS if k in source.metadata},
        excluded_embed_metadata_keys=list(source.excluded_embed_metadata_keys),
        excluded_llm_metadata_keys=list(source.excluded_llm_metadata_keys),
    )
    return ScoredNode(node, score)
