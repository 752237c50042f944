"""KeywordIndex: Okapi BM25 over an index's nodes, as numpy posting lists (no model, no I/O).

The vector store finds nodes that mean the same as a question; this finds nodes that share its
words, which matters for names, acronyms and technical terms a small embedding model blurs
("policy decision point" is not "policy" plus "decision"). Terms come from
``ragcore.lexical.term`` (lower case, English stopwords dropped, a light suffix stemmer), the
tokenizer the extractive backend ranks sentences with, applied to each node's embed-mode content
(its text with the metadata header the embedder sees).

Postings are a term-major CSR matrix of term frequencies: every raw word of the corpus is mapped
to a term id in one pass (``term`` runs once per distinct word), (term, node) pairs are counted
with one sort, and a query is a few vectorized operations per query term. Building is dominated
by the regular-expression word split (about 0.5-1 s per 10k 150-word nodes). Scores are
``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))`` with
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` (never negative); a query term counts once however
often the question repeats it. The postings are immutable: ``VectorStoreIndex.keyword_index()``
builds them on first use and again after the index's revision changes.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ConfigError
from ..lexical import term, terms, words
from ..stores.filters import MaskCache, MetadataFilters, id_mask
from ..stores.simple import top_k_indices
from ..types import MetadataMode, Node

K1 = 1.5
B = 0.75


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
    k1: float = K1
    b: float = B
    searches: int = 0  # how many searches this index has served (0: it was just built)
    _norms: np.ndarray = field(init=False, repr=False)
    _rows_by_id: dict[str, int] | None = field(default=None, init=False, repr=False)
    _masks: MaskCache = field(default_factory=MaskCache, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.k1 < 0 or not 0.0 <= self.b <= 1.0:
            raise ConfigError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={self.k1}, b={self.b}")
        avg = float(self.lengths.mean()) if self.lengths.size and self.lengths.any() else 1.0
        self._norms = self.k1 * (1.0 - self.b + self.b * self.lengths / avg)

    def __len__(self) -> int:
        return len(self.node_ids)

    @classmethod
    def build(
        cls, nodes: Iterable[Node], *, revision: int = 0, k1: float = K1, b: float = B
    ) -> KeywordIndex:
        """Index ``nodes``' embed-mode content (text plus the metadata the embedder sees)."""
        ids: list[str] = []
        metadata: list[dict[str, Any]] = []
        term_ids = _TermIds()
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
        keep = flat >= 0  # stopwords and single letters map to -1
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
            metadata, revision=revision, k1=k1, b=b,
        )

    def scores(self, query: str) -> np.ndarray:
        """The BM25 score of every node for ``query`` (0 for nodes sharing no term with it)."""
        scores = np.zeros(len(self.node_ids), dtype=np.float32)
        n = len(self.node_ids)
        for t in dict.fromkeys(terms(query)):
            term_id = self.vocabulary.get(t)
            if term_id is None:
                continue
            start, stop = self.starts[term_id], self.starts[term_id + 1]
            rows, tf = self.rows[start:stop], self.counts[start:stop]
            df = stop - start
            idf = np.log1p((n - df + 0.5) / (df + 0.5))
            # A term's postings hold each node once, so fancy-index += is safe here.
            scores[rows] += idf * tf * (self.k1 + 1.0) / (tf + self._norms[rows])
        return scores

    def search(
        self,
        query: str,
        *,
        top_k: int,
        filters: MetadataFilters | None = None,
        node_ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(node id, BM25 score) pairs, best first, among nodes sharing a term with ``query``
        and passing ``filters`` and ``node_ids`` (the vector store's semantics)."""
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")
        self.searches += 1
        scores = self.scores(query)
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
    """Raw word -> term id (-1 for stopwords and single letters), filled on first sight.

    Looking words up through ``dict.__getitem__`` keeps the per-token work in C; only a word
    never seen before (``__missing__``) costs a Python call to ``term``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.vocabulary: dict[str, int] = {}

    def __missing__(self, word: str) -> int:
        t = term(word)
        term_id = self[word] = self.vocabulary.setdefault(t, len(self.vocabulary)) if t else -1
        return term_id
