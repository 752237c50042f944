"""One document's chunks, found and built a slice at a time: a long document never has all its
nodes in memory, and the first slice is ready long before the whole text is split.

``document_chunks(splitter, document)`` gives a ``DocumentChunks``: ``nodes(begin, end)`` builds
the nodes of chunks ``begin..end-1`` (fewer at the end), ``finished(position)`` says whether
chunks remain from ``position``, and ``estimate()`` how many there are (exact once the whole
text was split; until then projected from the share of the text split so far). For the text
splitters here (``TextSplitter`` and its subclasses, unless a subclass builds nodes its own way)
chunk offsets are found a block of text (1M characters) at a time, and each slice's nodes are
exactly the nodes ``get_nodes_from_documents`` would give, with the same ids and prev/next links
across slice borders. Any other splitter (hierarchical, sentence window, a user's) splits the
whole document at once and is sliced.

``ChunkCount`` counts the chunks of a file's documents (a PDF's pages) together: it splits
them ahead, offsets only, up to ``SPLIT_AHEAD`` characters (exact for most files), and projects
the documents past that at the chunks per character of those split. A document not split yet
counted as one chunk: a 95-page PDF was counted 276, 287, 305 ... as its pages were reached,
and made 426.
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any, Iterator, Sequence

from ..types import Document, Node
from .nodes import build_nodes, node_id
from .splitter import Span, TextSplitter

# Characters split ahead to count a file's chunks: about half a second of splitting, a book of
# 300 pages; the spans found are the ones embedding uses next, so no work is done twice.
SPLIT_AHEAD = 1_000_000


class DocumentChunks:
    """The chunks of one document; ``nodes(begin, end)`` builds a slice of them."""

    def __init__(self, document: Document, *, spans: Iterator[list[Span]] | None = None,
                 nodes: list[Node] | None = None, splitter: TextSplitter | None = None) -> None:
        self.document = document
        self._nodes, self._splitter = nodes, splitter
        self._spans: list[Span] = []
        self._more = spans  # offsets not found yet, a block's at a time (None once all found)
        self._salt = splitter.settings_hash() if splitter is not None else ""

    def estimate(self) -> int:
        """How many chunks the document makes (projected until it is all split)."""
        if self._nodes is not None:
            return len(self._nodes)
        if self._more is None:
            return len(self._spans)
        if not self._spans:
            return 1
        covered = self._spans[-1][1] / max(len(self.document.text), 1)
        return max(len(self._spans), round(len(self._spans) / max(covered, 1e-9)))

    def finished(self, position: int) -> bool:
        if self._nodes is not None:
            return position >= len(self._nodes)
        self._find(position + 1)
        return position >= len(self._spans)

    def nodes(self, begin: int, end: int) -> list[Node]:
        if self._nodes is not None:
            return self._nodes[begin:end]
        self._find(end + 1)  # one more: the last node's next_id
        spans, splitter = self._spans, self._splitter
        assert splitter is not None
        nodes = build_nodes(self.document, spans[begin:end], salt=self._salt,
                            include_metadata=splitter.include_metadata,
                            include_prev_next_rel=splitter.include_prev_next_rel)
        if nodes and splitter.include_prev_next_rel:
            doc_id = self.document.doc_id
            if begin > 0:
                nodes[0].prev_id = node_id(doc_id, *spans[begin - 1], self._salt)
            if begin + len(nodes) < len(spans):
                nodes[-1].next_id = node_id(doc_id, *spans[begin + len(nodes)], self._salt)
        return nodes

    @property
    def split(self) -> bool:
        """Whether all of the text was split (its count is exact)."""
        return self._nodes is not None or self._more is None

    @property
    def found(self) -> int:
        """How many chunks were found so far (all of them once ``split``)."""
        return len(self._nodes) if self._nodes is not None else len(self._spans)

    def split_chars(self) -> int:
        """How many characters of the text are split so far (0: none yet)."""
        if self.split:
            return len(self.document.text)
        return self._spans[-1][1] if self._spans else 0

    def split_more(self) -> None:
        """Find the offsets of one more block of the text (or that it has no more)."""
        self._find(len(self._spans) + 1)

    def _find(self, count: int) -> None:
        """Split on, a block at a time, until ``count`` chunk offsets are known or the text
        ends (a text of one block is split at once, so its count is exact at once)."""
        while self._more is not None and len(self._spans) < count:
            spans = next(self._more, None)
            if spans is None:
                self._more = None
            else:
                self._spans += spans


class ChunkCount:
    """The chunks of a file's documents in all, and whether that count is exact, asked again
    at every slice embedded: documents are split ahead, a block at a time, while fewer than
    ``split_ahead`` characters are; those past it are projected at the chunks per character of
    the split ones (one each at least). The documents split whole from the first on are summed
    once, so a file of 100,000 records is not counted anew at every slice."""

    def __init__(self, chunks: Sequence[DocumentChunks], *,
                 split_ahead: int = SPLIT_AHEAD) -> None:
        self.chunks, self.split_ahead = chunks, split_ahead
        self.settled = self.counted = self.chars = 0  # documents split whole, from the first
        sizes = [len(doc.document.text) for doc in chunks]
        self.after = [*accumulate(reversed(sizes))][::-1] + [0]  # characters from each on

    def __call__(self) -> tuple[int, bool]:
        self._settle()
        counted = found = self.counted
        chars, number = self.chars, self.settled
        for doc in self.chunks[self.settled:]:  # split in part: a long document under way
            if not (doc.split or doc.split_chars()):
                break
            counted, found = counted + doc.estimate(), found + doc.found
            chars, number = chars + doc.split_chars(), number + 1
        waiting = len(self.chunks) - number  # not split at all
        projected = max(waiting, round(self.after[number] * found / chars)) if chars else waiting
        return counted + projected, self.settled == len(self.chunks)

    def _settle(self) -> None:
        """Split ahead within the budget; sum in the documents split whole from the first on."""
        while self.settled < len(self.chunks):
            doc = self.chunks[self.settled]
            while not doc.split and self.chars + doc.split_chars() < self.split_ahead:
                doc.split_more()
            if not doc.split:
                return
            self.counted += doc.estimate()
            self.chars += doc.split_chars()
            self.settled += 1


def document_chunks(splitter: Any, document: Document) -> DocumentChunks:
    """The chunks ``splitter`` makes of ``document``, found and built lazily where it can."""
    if (isinstance(splitter, TextSplitter)
            and type(splitter).get_nodes_from_documents is TextSplitter.get_nodes_from_documents
            and type(splitter).document_spans is TextSplitter.document_spans):
        return DocumentChunks(document, spans=splitter.iter_document_spans(document),
                              splitter=splitter)
    return DocumentChunks(document, nodes=list(splitter.get_nodes_from_documents([document])))
