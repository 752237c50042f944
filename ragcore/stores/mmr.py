"""Maximal marginal relevance: pick results that are relevant to the query but not to each other.

Each step takes the candidate maximising ``lam * relevance - (1 - lam) * redundancy``, where
redundancy is its highest similarity to any result already picked. ``lam`` is LlamaIndex's
``mmr_threshold``: 1 ranks by relevance alone, 0 by diversity alone. LlamaIndex compares a
candidate with the most recently picked result only; this compares it with all picked results,
which is the published algorithm and costs the same here (one matrix-vector product per step).
The first pick is always the most relevant candidate.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

# similarity(matrix, vector) -> (rows,) scores with the store's metric
Similarity = Callable[[np.ndarray, np.ndarray], np.ndarray]


def mmr_select(
    candidates: np.ndarray,
    relevance: np.ndarray,
    *,
    top_k: int,
    lam: float,
    similarity: Similarity,
) -> list[int]:
    """Indices into ``candidates`` in MMR order (at most ``top_k``)."""
    count = min(top_k, candidates.shape[0])
    if count <= 0:
        return []
    redundancy = np.full(candidates.shape[0], -np.inf, dtype=np.float64)
    taken = np.zeros(candidates.shape[0], dtype=bool)
    picked: list[int] = []
    for step in range(count):
        if step == 0:  # the most relevant result opens the list, whatever lam is
            score = relevance.astype(np.float64)
        else:
            score = lam * relevance - (1.0 - lam) * redundancy
        score[taken] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        taken[best] = True
        redundancy = np.maximum(redundancy, similarity(candidates, candidates[best]))
    return picked
