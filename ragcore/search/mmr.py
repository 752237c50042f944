"""Maximal marginal relevance: rerank candidates so results are relevant but not redundant.

A retrieval step, not a store feature: ``VectorRetriever(mode="mmr")`` over-fetches candidates
from the vector store by plain similarity, fetches their vectors and reranks them here, so every
store gets MMR by implementing only ``query`` and ``get_vectors``.

Each step takes the candidate maximising ``lam * relevance - (1 - lam) * redundancy``, where
redundancy is its highest similarity to any result already picked. ``lam`` is LlamaIndex's
``mmr_threshold``: 1 ranks by relevance alone, 0 by diversity alone. LlamaIndex compares a
candidate with the most recently picked result only; this compares it with all picked results,
which is the published algorithm and costs the same here (one matrix-vector product per step).
The first pick is always the most relevant candidate. Redundancy uses the store's metric, so
it is on the same scale as the relevance scores the store returned.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..embeddings.base import normalize
from ..errors import ConfigError

# similarity(matrix, vector) -> (rows,) scores with a store's metric
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
    relevance = np.asarray(relevance, dtype=np.float64)
    redundancy = np.full(candidates.shape[0], -np.inf, dtype=np.float64)
    taken = np.zeros(candidates.shape[0], dtype=bool)
    picked: list[int] = []
    for step in range(count):
        if step == 0:  # the most relevant result opens the list, whatever lam is
            score = relevance.copy()
        else:
            score = lam * relevance - (1.0 - lam) * redundancy
        score[taken] = -np.inf
        best = int(np.argmax(score))
        picked.append(best)
        taken[best] = True
        redundancy = np.maximum(redundancy, similarity(candidates, candidates[best]))
    return picked


def metric_similarity(metric: str) -> tuple[Callable[[np.ndarray], np.ndarray], Similarity]:
    """How to compare two stored vectors under ``metric``: (prepare rows, similarity).

    Cosine rows are normalized first (a store may return them raw), so a dot product is the
    cosine; euclidean similarity is the negative distance, like the store's scores.
    """
    if metric == "cosine":
        return normalize, _dot
    if metric == "dot":
        return _as_float32, _dot
    if metric == "euclidean":
        return _as_float32, _negative_distance
    raise ConfigError(
        f"MMR cannot compare vectors under metric {metric!r}: the store must use cosine, dot "
        "or euclidean"
    )


def mmr_order(
    vectors: np.ndarray, relevance: np.ndarray, *, metric: str, top_k: int, lam: float
) -> list[int]:
    """MMR over candidates' stored ``vectors`` and their ``relevance`` scores from the store."""
    prepare, similarity = metric_similarity(metric)
    return mmr_select(prepare(vectors), relevance, top_k=top_k, lam=lam, similarity=similarity)


def _as_float32(vectors: np.ndarray) -> np.ndarray:
    return np.asarray(vectors, dtype=np.float32)


def _dot(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    return matrix @ vector


def _negative_distance(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    return -np.linalg.norm(matrix - vector, axis=1)
