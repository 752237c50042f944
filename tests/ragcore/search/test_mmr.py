"""Maximal marginal relevance (ragcore.search.mmr): the algorithm against a reference, per
metric."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ragcore.errors import ConfigError
from ragcore.search.mmr import metric_similarity, mmr_order, mmr_select


def _reference_mmr(vectors, query, k, lam):
    sims = [float(v @ query) for v in vectors]
    picked = [int(np.argmax(sims))]
    while len(picked) < min(k, len(vectors)):
        best, best_score = None, -math.inf
        for i, v in enumerate(vectors):
            if i in picked:
                continue
            redundancy = max(float(v @ vectors[j]) for j in picked)
            score = lam * sims[i] - (1 - lam) * redundancy
            if score > best_score:
                best, best_score = i, score
        picked.append(best)
    return picked


@pytest.mark.parametrize("lam", [0.0, 0.3, 0.5, 0.8])
def test_mmr_matches_the_reference(lam):
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((60, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    query = vectors[0] + 0.1 * rng.standard_normal(8).astype(np.float32)
    got = mmr_select(vectors, vectors @ query, top_k=6, lam=lam, similarity=lambda m, v: m @ v)
    assert got == _reference_mmr(vectors, query, 6, lam)


NEAR_DUPLICATES = np.array(
    [[1.0, 0.0, 0.0], [0.99, 0.05, 0.0], [0.6, 0.0, 0.8]], dtype=np.float32
)  # base, its near-duplicate, a different direction


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_mmr_skips_a_near_duplicate_under_every_metric(metric):
    query = np.array([1.0, 0.02, 0.1], dtype=np.float32)
    prepare, similarity = metric_similarity(metric)
    relevance = similarity(prepare(NEAR_DUPLICATES), prepare(query[None, :])[0])
    assert list(np.argsort(-relevance)[:2]) == [0, 1]  # by similarity alone: the duplicate
    assert mmr_order(NEAR_DUPLICATES, relevance, metric=metric, top_k=2, lam=0.3) == [0, 2]
    assert mmr_order(NEAR_DUPLICATES, relevance, metric=metric, top_k=3, lam=1.0) == [0, 1, 2]


def test_cosine_redundancy_ignores_vector_length():
    """A store may return raw vectors: a long copy of the first pick is still a duplicate."""
    vectors = np.array([[1.0, 0.0], [5.0, 0.1], [0.5, 0.5]], dtype=np.float32)
    relevance = np.array([1.0, 0.99, 0.7])
    assert mmr_order(vectors, relevance, metric="cosine", top_k=2, lam=0.5) == [0, 2]


def test_an_unknown_metric_is_refused():
    with pytest.raises(ConfigError, match="'manhattan'"):
        mmr_order(NEAR_DUPLICATES, np.ones(3), metric="manhattan", top_k=2, lam=0.5)


def test_top_k_beyond_the_candidates_returns_them_all():
    assert sorted(mmr_order(NEAR_DUPLICATES, np.ones(3), metric="dot", top_k=9, lam=0.5)) == [
        0, 1, 2
    ]
    assert mmr_select(np.zeros((0, 3)), np.zeros(0), top_k=3, lam=0.5, similarity=np.dot) == []
