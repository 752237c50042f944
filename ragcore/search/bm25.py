"""Okapi BM25's formula and its two parameters, vectorized over the nodes one term matches.

A node's score for a query is the sum over the query's distinct terms of
``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avg_len))`` with
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` (Lucene's form: never negative). ``k1`` says how
fast repeats of a term stop adding to the score (0: a term counts once however often it occurs),
``b`` how much a long node is penalised (0: not at all, 1: in proportion to its length).
Lucene's defaults, 1.2 and 0.75, are ours.

Only the formula lives here; the postings it runs over are ``ragcore.index.keyword``'s, and the
words that become terms are ``ragcore.search.analysis``'s.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConfigError

K1 = 1.2
B = 0.75


def check_bm25(k1: float, b: float) -> None:
    """Raise ConfigError naming the bad value unless ``k1 >= 0`` and ``0 <= b <= 1``."""
    for name, value, usual in (("k1", k1, K1), ("b", b, B)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise ConfigError(f"BM25 {name} must be a number, got {value!r} (usual: {usual})")
    if k1 < 0:
        raise ConfigError(f"BM25 k1 ({k1}) must be >= 0 (0 ignores repeats; {K1} is usual)")
    if not 0.0 <= b <= 1.0:
        raise ConfigError(
            f"BM25 b ({b}) must be between 0 (no length penalty) and 1 ({B} is usual)"
        )


def idf(nodes: int, df: int) -> float:
    """Inverse document frequency of a term found in ``df`` of ``nodes`` nodes."""
    return float(np.log1p((nodes - df + 0.5) / (df + 0.5)))


def average_length(lengths: np.ndarray) -> float:
    """The mean of nodes' lengths in terms (1 when none has any), summed exactly: the same
    whatever the order or the grouping of the nodes (one index, or segments and a mask)."""
    total = float(np.sum(lengths, dtype=np.float64))
    return total / lengths.size if total > 0 else 1.0


def length_norms(lengths: np.ndarray, *, k1: float, b: float,
                 avg: float | None = None) -> np.ndarray:
    """``k1 * (1 - b + b * len / avg_len)`` for each node's length in terms (``avg``: the
    average over the live nodes, when ``lengths`` holds others too)."""
    avg = average_length(lengths) if avg is None else avg
    return (k1 * (1.0 - b + b * np.asarray(lengths, dtype=np.float32) / avg)).astype(np.float32)


def term_scores(weight: float, tf: np.ndarray, norms: np.ndarray, *, k1: float) -> np.ndarray:
    """One term's contribution to the nodes it occurs in: ``weight`` (its idf) times the
    saturated frequency, with ``tf`` and ``norms`` aligned by node."""
    return weight * tf * (k1 + 1.0) / (tf + norms)
