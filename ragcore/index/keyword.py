"""KeywordIndex: Okapi BM25 over an index's nodes, as numpy posting lists (no model, no I/O).

The vector store finds nodes that mean the same as a question; this finds nodes that share its
words, which matters for names, acronyms and technical terms a small embedding model blurs
("policy decision point" is not "policy" plus "decision"). Terms come from an analyzer, by
default ``ragcore.search.analysis.term`` (lower case, Snowball's English stopwords dropped, the
Snowball English stemmer), applied to each node's embed-mode content (its text with the
metadata header the embedder sees) and to the question.

Postings are parts (``ragcore.index.postings``): term-major CSR matrices of term frequencies,
one per saved node segment (written with the segment, memory-mapped at load) and one for the
nodes added since the last save, built on first use (the analyzer runs once per distinct word;
0.6 s per 10k 150-word nodes). A mask says which rows of the parts are live: BM25's statistics
(live rows, document frequency, average length) are sums over them, so scores equal those of one
index built over the live nodes. A query is a binary search and a few vectorized operations per
query term and part. Scores are Okapi BM25 (``ragcore.search.bm25``); a query term counts once
however often the question repeats it. ``k1`` and ``b`` are per search (Lucene's 1.2 and 0.75 by
default): the postings do not depend on them. A ``KeywordIndex`` is immutable:
``VectorStoreIndex.keyword_index()`` assembles one on first use and again after the index's
revision changes (``keyword_parts``: the saved parts are reused, only nodes added since are
analyzed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from ..search.analysis import Analyzer, term, terms
from ..search.bm25 import B, K1, average_length, check_bm25, idf, length_norms, term_scores
from ..errors import ConfigError
from ..stores.filters import MaskCache, MetadataFilters, id_mask
from ..stores.simple.store import top_k_indices
from ..types import MetadataMode, Node
from .postings import Postings, build_postings

Metadata = Callable[[], list[dict[str, Any]]]  # each row's metadata ({} for dead rows)


@dataclass(slots=True, eq=False)
class KeywordIndex:
    """BM25 over the live rows of postings parts; rows follow ``node_ids``, part after part."""

    node_ids: Sequence[str]  # a list, or the saved node files' ids chained (keyword_parts)
    parts: list[Postings]
    live: np.ndarray | None  # (rows,) bool: rows still in the index (None: all)
    metadata_of: Metadata  # called on the first filtered search
    revision: int = 0  # the index revision these postings were built from
    analyzer: Analyzer = term  # raw word -> term, for the nodes and every query
    searches: int = 0  # how many searches this index has served (0: it was just assembled)
    source: Any = None  # the node segments whose global rows its first rows are (None: none)
    _starts: list[int] = field(default_factory=list, init=False, repr=False)
    _lengths: np.ndarray | None = field(default=None, init=False, repr=False)
    _norms: dict[tuple[float, float], np.ndarray] = field(
        default_factory=dict, init=False, repr=False
    )
    _rows_by_id: dict[str, int] | None = field(default=None, init=False, repr=False)
    _metadata: list[dict[str, Any]] | None = field(default=None, init=False, repr=False)
    _masks: MaskCache = field(default_factory=MaskCache, init=False, repr=False)

    def __post_init__(self) -> None:
        self._starts = np.cumsum([0, *map(len, self.parts)]).tolist()
        if self._starts[-1] != len(self.node_ids):
            raise ValueError(f"postings of {self._starts[-1]} rows for {len(self.node_ids)} ids")

    def __len__(self) -> int:
        """Live nodes."""
        return len(self.node_ids) if self.live is None else int(np.count_nonzero(self.live))

    @classmethod
    def build(
        cls, nodes: Iterable[Node], *, revision: int = 0, analyzer: Analyzer = term
    ) -> KeywordIndex:
        """Index ``nodes``' embed-mode content (text plus the metadata the embedder sees)."""
        held = list(nodes)
        postings = build_postings((n.content(MetadataMode.EMBED) for n in held), analyzer)
        metadata = [n.metadata for n in held]
        return cls([n.node_id for n in held], [postings], None, lambda: metadata,
                   revision=revision, analyzer=analyzer)

    def scores(self, query: str, *, k1: float = K1, b: float = B) -> np.ndarray:
        """The BM25 score of every row for ``query`` (0 for rows sharing no term with it, and
        for dead rows)."""
        check_bm25(k1, b)
        scores = np.zeros(len(self.node_ids), dtype=np.float32)
        n = len(self)
        norms = self._length_norms(k1, b)
        for t in dict.fromkeys(terms(query, self.analyzer)):
            rows, tf = self._postings(t)
            if rows.size:
                # A term's postings hold each row once, so fancy-index += is safe here.
                scores[rows] += term_scores(idf(n, rows.size), tf, norms[rows], k1=k1)
        return scores

    def holds(self, text: str) -> bool:
        """Whether every term of ``text`` (a name: "President", "Officer Mora") is in a live
        row of the index, each anywhere; False for text with no term."""
        found = [self._postings(t)[0].size > 0 for t in dict.fromkeys(terms(text, self.analyzer))]
        return bool(found) and all(found)

    def _postings(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """The live rows (global) holding ``word`` and its frequencies there, as float32."""
        found = []
        for part, start in zip(self.parts, self._starts):
            rows, tf = part.find(word)
            if rows.size:
                found.append((rows.astype(np.int64) + start, tf))
        if not found:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        rows = np.concatenate([r for r, _ in found])
        tf = np.concatenate([f for _, f in found]).astype(np.float32)
        if self.live is not None:
            keep = self.live[rows]
            rows, tf = rows[keep], tf[keep]
        return rows, tf

    @property
    def lengths(self) -> np.ndarray:
        """Terms per row, every part's rows in order."""
        if self._lengths is None:
            self._lengths = np.concatenate([np.asarray(p.lengths) for p in self.parts]
                                           or [np.zeros(0, np.int32)])
        return self._lengths

    def _length_norms(self, k1: float, b: float) -> np.ndarray:
        """``k1 * (1 - b + b * len / avg_len)`` per row (the average over live rows), kept per
        (k1, b)."""
        norms = self._norms.get((k1, b))
        if norms is None:
            lengths = self.lengths
            avg = average_length(lengths if self.live is None else lengths[self.live])
            norms = self._norms[(k1, b)] = length_norms(lengths, k1=k1, b=b, avg=avg)
        return norms

    def search(
        self,
        query: str,
        *,
        top_k: int,
        filters: MetadataFilters | None = None,
        node_ids: Sequence[str] | None = None,
        k1: float = K1,
        b: float = B,
    ) -> list[tuple[str, float]]:
        """(node id, BM25 score) pairs, best first, among nodes sharing a term with ``query``
        and passing ``filters`` and ``node_ids`` (the vector store's semantics)."""
        hits = self.hits(query, top_k=top_k, filters=filters, node_ids=node_ids, k1=k1, b=b)
        return [(self.node_ids[r], score) for r, score in hits]

    def hits(
        self,
        query: str,
        *,
        top_k: int,
        filters: MetadataFilters | None = None,
        node_ids: Sequence[str] | None = None,
        k1: float = K1,
        b: float = B,
    ) -> list[tuple[int, float]]:
        """As ``search``, with rows instead of node ids (``node_ids[row]``)."""
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")
        self.searches += 1
        scores = self.scores(query, k1=k1, b=b)
        allowed = scores > 0
        if filters is not None:
            allowed &= self._masks.mask(filters, self._metadata_rows)
        if node_ids is not None:
            allowed &= id_mask(self._row_map(), node_ids, len(self.node_ids))
        candidates = np.flatnonzero(allowed)
        picked = candidates[top_k_indices(scores[candidates], top_k)]
        return [(r, float(scores[r])) for r in picked.tolist()]

    def _metadata_rows(self) -> list[dict[str, Any]]:
        if self._metadata is None:
            self._metadata = self.metadata_of()
        return self._metadata

    def _row_map(self) -> dict[str, int]:
        """Node id -> its live row."""
        if self._rows_by_id is None:
            rows = range(len(self.node_ids))
            if self.live is not None:
                rows = np.flatnonzero(self.live).tolist()
            self._rows_by_id = {self.node_ids[r]: r for r in rows}
        return self._rows_by_id
