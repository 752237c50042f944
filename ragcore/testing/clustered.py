"""Clustered synthetic vectors, shaped like sentence embeddings, for approximate-search tests.

Uniform random vectors in 384 dimensions are the worst case for any approximate index (every
point is about as far from every other), and real embeddings are nothing like them: they
gather in topics and vary along far fewer directions than they have. ``clustered_vectors``
draws a topic centre per cluster, then moves each row from its centre along a shared
low-rank subspace (``rank`` directions) plus a little noise in every direction, and
normalizes: rows of a cluster have cosine about 0.6-0.8 with each other, as passages on one
subject do. The same ``seed`` gives the same centres, so ``clustered_vectors(.., seed=s,
draw=1)`` gives fresh queries from the same topics as ``draw=0``'s rows.
"""

from __future__ import annotations

import numpy as np

_BLOCK = 100_000  # rows made at a time: 1M rows need no big temporaries


def clustered_vectors(
    n: int, dim: int = 384, *, clusters: int | None = None, rank: int = 48, seed: int = 0,
    draw: int = 0,
) -> np.ndarray:
    """``n`` L2-normalized float32 rows in ``clusters`` topics (default: one per 500 rows)."""
    clusters = clusters or max(1, n // 500)
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((clusters, dim), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    basis = rng.standard_normal((rank, dim), dtype=np.float32)
    basis /= np.sqrt(dim * rank, dtype=np.float32)
    rows = np.empty((n, dim), dtype=np.float32)
    draws = np.random.default_rng([seed, draw + 1])
    for start in range(0, n, _BLOCK):
        size = min(_BLOCK, n - start)
        topic = draws.integers(0, clusters, size)
        block = centres[topic]
        block += 0.6 * draws.standard_normal((size, rank), dtype=np.float32) @ basis
        block += 0.25 / np.sqrt(dim) * draws.standard_normal((size, dim), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        rows[start : start + size] = block
    return rows
