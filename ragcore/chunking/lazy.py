"""One document's chunks, built a slice at a time: a long document never has all its nodes in
memory at once.

``document_chunks(splitter, document)`` gives a ``DocumentChunks``: its length is the number of
chunks, and ``nodes(begin, end)`` builds the nodes of chunks ``begin..end-1``. For the text
splitters here (``TextSplitter`` and its subclasses, unless a subclass builds nodes its own way)
only the chunk offsets are computed up front, and each slice's nodes are exactly the nodes
``get_nodes_from_documents`` would give, with the same ids and prev/next links across slice
borders. Any other splitter (hierarchical, sentence window, a user's) splits the whole document
at once and is sliced.
"""

from __future__ import annotations

from typing import Any

from ..types import Document, Node
from .nodes import build_nodes, node_id
from .splitter import Span, TextSplitter


class DocumentChunks:
    """The chunks of one document; ``nodes(begin, end)`` builds a slice of them."""

    def __init__(self, document: Document, *, spans: list[Span] | None = None,
                 nodes: list[Node] | None = None, splitter: TextSplitter | None = None) -> None:
        self.document = document
        self._spans, self._nodes, self._splitter = spans, nodes, splitter
        self._salt = splitter.settings_hash() if splitter is not None else ""

    def __len__(self) -> int:
        return len(self._nodes if self._nodes is not None else self._spans or [])

    def nodes(self, begin: int, end: int) -> list[Node]:
        if self._nodes is not None:
            return self._nodes[begin:end]
        spans, splitter = self._spans or [], self._splitter
        assert splitter is not None
        nodes = build_nodes(self.document, spans[begin:end], salt=self._salt,
                            include_metadata=splitter.include_metadata,
                            include_prev_next_rel=splitter.include_prev_next_rel)
        if nodes and splitter.include_prev_next_rel:
            doc_id = self.document.doc_id
            if begin > 0:
                nodes[0].prev_id = node_id(doc_id, *spans[begin - 1], self._salt)
            if end < len(spans):
                nodes[-1].next_id = node_id(doc_id, *spans[end], self._salt)
        return nodes


def document_chunks(splitter: Any, document: Document) -> DocumentChunks:
    """The chunks ``splitter`` makes of ``document``, built lazily where the splitter allows."""
    if (isinstance(splitter, TextSplitter)
            and type(splitter).get_nodes_from_documents is TextSplitter.get_nodes_from_documents
            and type(splitter).document_spans is TextSplitter.document_spans):
        return DocumentChunks(document, spans=splitter.document_spans(document), splitter=splitter)
    return DocumentChunks(document, nodes=list(splitter.get_nodes_from_documents([document])))
