"""Retrieval metrics of one judged ranking: hit rate, MRR, precision, recall and nDCG, at k.

A ranking is judged first (``relevance.py``): for each retrieved item, which of the question's
expected items it holds. The metrics are then arithmetic on that judgement, so the same code
scores node ids (a generated question set), expected sources (an imported one) and gold strings
(``benchmarks/retrieval/bench_retrieval.py``). A metric name may carry its cut-off: "ndcg@10",
"recall@4"; without one the whole ranking counts.

- hit_rate: 1 when any of the first k items is relevant, else 0;
- mrr: 1 / the rank of the first relevant item among the first k, 0 if none;
- precision: relevant items among the first k / the items looked at (k, or fewer if fewer
  were retrieved: LlamaIndex divides by the retrieved count too);
- recall: the share of the expected items held by the first k;
- ap (average precision): the precision at each relevant item's rank, summed, over the number
  expected (at least the relevant items returned, as for nDCG);
- ndcg: binary gains, 1 / log2(rank + 1); the ideal ranking puts ``relevant_total`` relevant
  items first (default: the number expected; at least the relevant items returned, as several
  passages may match one expected source), at most k of them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable

from ..errors import ConfigError


@dataclass(frozen=True, slots=True)
class Judged:
    """A ranking judged against what was expected: per rank, the expected items it holds."""

    matches: tuple[frozenset[int], ...]
    expected: int  # how many items were expected
    relevant_total: int | None = None  # relevant items in the whole collection, if known

    @property
    def relevant(self) -> list[bool]:
        return [bool(m) for m in self.matches]

    def top(self, k: int | None) -> tuple[frozenset[int], ...]:
        return self.matches if k is None else self.matches[:k]


def hit_rate(judged: Judged, k: int | None = None) -> float:
    """1.0 when one of the first ``k`` retrieved items is relevant."""
    return 1.0 if any(judged.top(k)) else 0.0


def mrr(judged: Judged, k: int | None = None) -> float:
    """The reciprocal rank of the first relevant item among the first ``k``."""
    for rank, found in enumerate(judged.top(k), start=1):
        if found:
            return 1.0 / rank
    return 0.0


def precision(judged: Judged, k: int | None = None) -> float:
    """The share of the first ``k`` retrieved items that are relevant."""
    top = judged.top(k)
    return sum(1 for m in top if m) / len(top) if top else 0.0


def recall(judged: Judged, k: int | None = None) -> float:
    """The share of the expected items that the first ``k`` retrieved items hold."""
    if not judged.expected:
        return 0.0
    covered = frozenset().union(*judged.top(k))
    return len(covered) / judged.expected


def average_precision(judged: Judged, k: int | None = None) -> float:
    """The mean of the precision at each relevant rank among the first ``k`` (LlamaIndex's ap)."""
    found, total = 0, 0.0
    for rank, match in enumerate(judged.top(k), start=1):
        if match:
            found += 1
            total += found / rank
    return total / max(judged.expected, found) if found else 0.0


def ndcg(judged: Judged, k: int | None = None) -> float:
    """Normalised discounted cumulative gain of the first ``k`` items (binary relevance)."""
    top = judged.top(k)
    dcg = sum(1.0 / math.log2(rank + 2) for rank, m in enumerate(top) if m)
    total = judged.expected if judged.relevant_total is None else judged.relevant_total
    # Several passages can match one expected item (chunks of an expected file, overlapping
    # windows): the ideal ranking holds at least the relevant passages returned, so nDCG <= 1.
    total = max(total, sum(1 for m in top if m))
    cut = len(judged.matches) if k is None else k
    ideal = sum(1.0 / math.log2(rank + 2) for rank in range(min(total, cut)))
    return dcg / ideal if ideal else 0.0


Metric = Callable[[Judged, "int | None"], float]
METRICS: dict[str, Metric] = {
    "hit_rate": hit_rate, "mrr": mrr, "precision": precision, "recall": recall,
    "ap": average_precision, "ndcg": ndcg,
}
_NAME = re.compile(r"^(?P<metric>[a-z_]+)(?:@(?P<k>\d+))?$")


@dataclass(frozen=True, slots=True)
class RetrievalMetric:
    """One metric at one cut-off, named as asked ("mrr", "ndcg@10")."""

    metric_name: str
    compute_judged: Metric
    k: int | None = None

    def __call__(self, judged: Judged) -> float:
        return self.compute_judged(judged, self.k)


def resolve_metrics(names: list[str] | tuple[str, ...]) -> list[RetrievalMetric]:
    """The metrics named (``"hit_rate"``, ``"mrr@10"`` ...); ConfigError lists the known ones."""
    if isinstance(names, str):
        names = [names]
    metrics = []
    for name in names:
        parsed = _NAME.match(str(name).strip().lower())
        if not parsed or parsed["metric"] not in METRICS or parsed["k"] == "0":
            raise ConfigError(
                f"unknown retrieval metric {name!r}: use one of {', '.join(METRICS)}, "
                "optionally with a cut-off such as 'ndcg@10'")
        k = int(parsed["k"]) if parsed["k"] else None
        metrics.append(RetrievalMetric(str(name).strip().lower(), METRICS[parsed["metric"]], k))
    if not metrics:
        raise ConfigError("no retrieval metric named: give at least one, e.g. ['hit_rate', 'mrr']")
    return metrics
