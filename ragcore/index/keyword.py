"""KeywordIndex: Okapi BM25 over an index's nodes, as numpy posting lists (no model, no I/O).

The vector store finds nodes that mean the same as a question; this finds nodes that share its
words, which matters for names, acronyms and technical terms a small embedding model blurs
("policy decision point" is not "policy" plus "decision"). Terms come from an analyzer, by
default ``ragcore.search.analysis.term`` (lower case, Snowball's English stopwords dropped, the
Snowball English stemmer), applied to each node's embed-mode content (its text with the
metadata header the embedder sees) and to the question.

Postings are a term-major CSR matrix of term frequencies: every raw word of the corpus is mapped
to a term id in one pass (the analyzer runs once per distinct word), (term, node) pairs are
counted with one sort, and a query is a few vectorized operations per query term. Building is
dominated by the regular-expression word split and the stemmer's first sight of each distinct
word (0.6 s per 10k 150-word nodes; 0.9 s the first time in a process, loading the stemmer).
Scores are Okapi BM25 (``ragcore.search.bm25``); a query term counts once however often the question
repeats it. ``k1`` and ``b`` are per search (Lucene's
1.2 and 0.75 by default): the postings do not depend on them. The postings are immutable:
``VectorStoreIndex.keyword_index()`` builds them on first use and again after the index's
revision changes.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from ..search.analysis import Analyzer, term, terms, words
from ..search.bm25 import B, K1, check_bm25, idf, length_norms, term_scores
from ..errors import ConfigError
from ..stores.filters import MaskCache, MetadataFilters, id_mask
from ..stores.simple import top_k_indices
from ..types import MetadataMode, Node


@dataclass(slots=True, eq=False)
class KeywordIndex:
    """BM25 postings over a fixed list of nodes; rows follow ``node_ids``."""

    node_ids: list[str]
    vocabulary: dict[str, int]  # term -> term id
    starts: np.ndarray  # (terms + 1,) int64: postings of term t are starts[t]:starts[t + 1]
    rows: np.ndarray  # (postings,) int32 node rows, ascending within a term
    counts: np.ndarray  # (postings,) float32 term frequencies
    lengths: np.ndarray  # (nodes,) terms per node
    metadata: list[dict[str, Any]]
    revision: int = 0  # the index revision these postings were built from
    analyzer: Analyzer = term  # raw word -> term, for the nodes and every query
    searches: int = 0  # how many searches this index has served (0: it was just built)
    _norms: dict[tuple[float, float], np.ndarray] = field(
        default_factory=dict, init=False, repr=False
    )
    _rows_by_id: dict[str, int] | None = field(default=None, init=False, repr=False)
    _masks: MaskCache = field(default_factory=MaskCache, init=False, repr=False)

    def __len__(self) -> int:
        return len(self.node_ids)

    @classmethod
    def build(
        cls, nodes: Iterable[Node], *, revision: int = 0, analyzer: Analyzer = term
    ) -> KeywordIndex:
        """Index ``nodes``' embed-mode content (text plus the metadata the embedder sees)."""
        ids: list[str] = []
        metadata: list[dict[str, Any]] = []
        term_ids = _TermIds(analyzer)
        # Term ids go straight into a C array: no list of millions of word strings is kept.
        tokens, ends = array("q"), array("q")
        for node in nodes:
            ids.append(node.node_id)
            metadata.append(node.metadata)
            tokens.extend(map(term_ids.__getitem__, words(node.content(MetadataMode.EMBED))))
            ends.append(len(tokens))
        vocabulary = term_ids.vocabulary
        flat = np.frombuffer(tokens, dtype=np.int64) if tokens else np.zeros(0, np.int64)
        per_node = np.diff(np.frombuffer(ends, dtype=np.int64), prepend=0) if ends else flat
        node_rows = np.repeat(np.arange(len(ids), dtype=np.int64), per_node)
        keep = flat >= 0  # words the analyzer leaves out (stopwords, letters) map to -1
        flat, node_rows = flat[keep], node_rows[keep]
        lengths = np.bincount(node_rows, minlength=len(ids)).astype(np.float32)
        # One key per (term, node) pair, term-major, so each term's postings are contiguous;
        # a sort and the positions where the key changes count them (faster than np.unique).
        keys = np.sort(flat * max(len(ids), 1) + node_rows)
        first = np.flatnonzero(np.diff(keys, prepend=-1))
        counts = np.diff(first, append=keys.size)
        term_ids, rows = np.divmod(keys[first], max(len(ids), 1))
        starts = np.zeros(len(vocabulary) + 1, dtype=np.int64)
        np.cumsum(np.bincount(term_ids, minlength=len(vocabulary)), out=starts[1:])
        return cls(
            ids, vocabulary, starts, rows.astype(np.int32), counts.astype(np.float32), lengths,
            metadata, revision=revision, analyzer=analyzer,
        )

    def scores(self, query: str, *, k1: float = K1, b: float = B) -> np.ndarray:
        """The BM25 score of every node for ``query`` (0 for nodes sharing no term with it)."""
        check_bm25(k1, b)
        scores = np.zeros(len(self.node_ids), dtype=np.float32)
        n = len(self.node_ids)
        norms = self._length_norms(k1, b)
        for t in dict.fromkeys(terms(query, self.analyzer)):
            term_id = self.vocabulary.get(t)
            if term_id is None:
                continue
            start, stop = self.starts[term_id], self.starts[term_id + 1]
            rows, tf = self.rows[start:stop], self.counts[start:stop]
            # A term's postings hold each node once, so fancy-index += is safe here.
            scores[rows] += term_scores(idf(n, int(stop - start)), tf, norms[rows], k1=k1)
        return scores

    def _length_norms(self, k1: float, b: float) -> np.ndarray:
        """``k1 * (1 - b + b * len / avg_len)`` per node, kept per (k1, b)."""
        norms = self._norms.get((k1, b))
        if norms is None:
            norms = self._norms[(k1, b)] = length_norms(self.lengths, k1=k1, b=b)
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
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")
        self.searches += 1
        scores = self.scores(query, k1=k1, b=b)
        allowed = scores > 0
        if filters is not None:
            allowed &= self._masks.mask(filters, lambda: self.metadata)
        if node_ids is not None:
            allowed &= id_mask(self._row_map(), node_ids, len(self.node_ids))
        candidates = np.flatnonzero(allowed)
        picked = candidates[top_k_indices(scores[candidates], top_k)]
        return [(self.node_ids[r], float(scores[r])) for r in picked.tolist()]

    def _row_map(self) -> dict[str, int]:
        if self._rows_by_id is None:
            self._rows_by_id = dict(zip(self.node_ids, range(len(self.node_ids))))
        return self._rows_by_id


class _TermIds(dict):
    """Raw word -> term id (-1 for words the analyzer leaves out), filled on first sight.

    Looking words up through ``dict.__getitem__`` keeps the per-token work in C; only a word
    never seen before (``__missing__``) costs a Python call to the analyzer.
    """

    def __init__(self, analyzer: Analyzer) -> None:
        super().__init__()
        self.analyzer = analyzer
        self.vocabulary: dict[str, int] = {}

    def __missing__(self, word: str) -> int:
        t = self.analyzer(word)
        term_id = self[word] = self.vocabulary.setdefault(t, len(self.vocabulary)) if t else -1
        return term_id
