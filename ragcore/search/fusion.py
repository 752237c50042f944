"""Rank fusion: several rankings of the same nodes merged into one (no model, no I/O).

Hybrid retrieval (``ragcore.retrieval.retrievers.HybridRetriever``) ranks nodes by meaning (cosine
similarity) and by words (BM25), two scores on unrelated scales. Fusion either ignores the
scores or scales each ranking's scores to 0..1 before adding them; the method names are
LlamaIndex's ``QueryFusionRetriever`` modes:

- ``relative_score``: each ranking min-max scaled (its best node 1, its last 0), then a
  weighted sum; a node missing from a ranking gets 0 from it. This is the convex combination
  of Bruch, Gai and Ingber (2023), which they found ahead of reciprocal rank, and Weaviate's
  relativeScoreFusion.
- ``dist_based_score``: the same, scaled over the ranking's mean +- 3 standard deviations
  (clipped to 0..1) rather than its two extreme scores, so the spread of the whole ranking
  sets the scale and its last candidate still counts for more than a node it lacks.
- ``reciprocal_rank``: ``sum(1 / (rrf_k + rank))`` over the rankings a node is in (rank 1 is
  best), ignoring scores (Cormack, Clarke and Buettcher 2009, ``rrf_k`` = 60).

``with_side_heads`` then keeps each ranking's first few nodes in the fused top k: score fusion
favours a node both rankings hold, so a node only BM25 finds (the one chunk holding a rare
name, which meaning ranks 250th) can fall from second to fortieth.

Unlike its sibling ``ragcore.search.mmr``, which reorders one ranking for diversity, fusion merges
several. Every method keeps the first-seen order for ties (earlier rankings first), so results
are deterministic.
"""

from __future__ import annotations

from statistics import fmean, pstdev
from typing import Literal, Sequence

from ..errors import ConfigError
from ..types import Node, ScoredNode

FusionMethod = Literal["relative_score", "dist_based_score", "reciprocal_rank"]
FUSION_METHODS: tuple[str, ...] = ("relative_score", "dist_based_score", "reciprocal_rank")
RRF_K = 60  # the constant of Cormack et al. (2009), also LlamaIndex's


def fuse(
    rankings: Sequence[Sequence[ScoredNode]],
    *,
    method: FusionMethod = "relative_score",
    weights: Sequence[float] | None = None,
    rrf_k: float = RRF_K,
) -> list[ScoredNode]:
    """``rankings`` merged by ``method`` (one of ``FUSION_METHODS``), best first.

    ``weights`` (one per ranking, default equal, summing to 1) apply to the score methods;
    reciprocal rank counts every ranking once.
    """
    check_fusion_method(method)
    if method == "reciprocal_rank":
        return reciprocal_rank_fusion(rankings, rrf_k=rrf_k)
    return score_fusion(rankings, weights=weights, dist_based=method == "dist_based_score")


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[ScoredNode]], *, rrf_k: float = RRF_K
) -> list[ScoredNode]:
    """Nodes of all ``rankings`` scored ``sum(1 / (rrf_k + rank))``, best first."""
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, (int, float)) or rrf_k < 0:
        raise ConfigError(f"rrf_k ({rrf_k!r}) must be a number >= 0 (60 is the usual value)")
    parts = [[1.0 / (rrf_k + rank) for rank in range(1, len(r) + 1)] for r in rankings]
    return _merge(rankings, parts)


def score_fusion(
    rankings: Sequence[Sequence[ScoredNode]],
    *,
    weights: Sequence[float] | None = None,
    dist_based: bool = False,
) -> list[ScoredNode]:
    """Nodes scored by the weighted sum of their scaled scores (0 where a ranking lacks them)."""
    weights = _weights(weights, len(rankings))
    parts = [
        [w * s for s in scaled([r.score or 0.0 for r in ranking], dist_based=dist_based)]
        for ranking, w in zip(rankings, weights)
    ]
    return _merge(rankings, parts)


def with_side_heads(
    fused: Sequence[ScoredNode], rankings: Sequence[Sequence[ScoredNode]], *, heads: int,
    top_k: int,
) -> list[ScoredNode]:
    """The first ``top_k`` of ``fused`` with each ranking's first ``heads`` nodes among them.

    A head the fused top k lacks takes the place of its last node; heads keep their fused
    scores and order, so the list stays best first. ``heads`` of 0 is plain truncation.
    """
    top = list(fused[:top_k])
    if heads <= 0:
        return top
    held = {scored.node.node_id for scored in top}
    wanted = {scored.node.node_id for ranking in rankings for scored in ranking[:heads]}
    missing = [scored for scored in fused[top_k:] if scored.node.node_id in wanted - held]
    if not missing:
        return top
    return top[: max(0, top_k - len(missing))] + missing[:top_k]


def scaled(scores: Sequence[float], *, dist_based: bool = False) -> list[float]:
    """``scores`` mapped to 0..1: min-max, or over mean +- 3 standard deviations (clipped).

    Equal scores all become 1 (each is the ranking's best), or 0 when they are not positive.
    """
    if not scores:
        return []
    if dist_based:
        mean, spread = fmean(scores), 3.0 * pstdev(scores)
        low, high = mean - spread, mean + spread
    else:
        low, high = min(scores), max(scores)
    if high <= low:
        return [1.0 if high > 0 else 0.0 for _ in scores]
    return [min(1.0, max(0.0, (s - low) / (high - low))) for s in scores]


def check_fusion_method(method: str) -> None:
    """Raise ConfigError naming the choices unless ``method`` is one of ``FUSION_METHODS``."""
    if method not in FUSION_METHODS:
        choices = ", ".join(FUSION_METHODS)
        raise ConfigError(f"fusion method {method!r} is not supported: use one of {choices}")


def _weights(weights: Sequence[float] | None, count: int) -> list[float]:
    if weights is None:
        return [1.0 / count] * count if count else []
    weights = list(weights)
    if len(weights) != count:
        raise ConfigError(f"fusion got {len(weights)} weights for {count} rankings: give one each")
    if any(isinstance(w, bool) or not isinstance(w, (int, float)) or w < 0 for w in weights):
        raise ConfigError(f"fusion weights ({weights}) must be numbers >= 0")
    return weights


def _merge(
    rankings: Sequence[Sequence[ScoredNode]], parts: Sequence[Sequence[float]]
) -> list[ScoredNode]:
    """Per-node sums of ``parts`` (aligned with ``rankings``), best first, ties first-seen."""
    nodes: dict[str, Node] = {}
    fused: dict[str, float] = {}
    for ranking, contributions in zip(rankings, parts):
        for scored, part in zip(ranking, contributions):
            node_id = scored.node.node_id
            nodes.setdefault(node_id, scored.node)
            fused[node_id] = fused.get(node_id, 0.0) + part
    order = sorted(fused, key=lambda i: -fused[i])  # stable: ties stay in first-seen order
    return [ScoredNode(nodes[i], fused[i]) for i in order]
