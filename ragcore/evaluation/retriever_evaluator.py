"""``RetrieverEvaluator``: retrieve each question, judge the ranking, compute the metrics.

LlamaIndex's shape: ``RetrieverEvaluator.from_metric_names(["hit_rate", "mrr"],
retriever=...)``, then ``evaluate(query, expected_ids)`` for one question or
``evaluate_dataset(dataset)`` for a question set (``aevaluate*`` run the same code in a worker
thread). ``evaluate_ranking`` scores a ranking already retrieved, which is how the batch runner
shares one retrieval between response modes and how the benchmark scores its rankings. With
``expected_texts`` and no ids, a passage is relevant when it holds one of the texts.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any, Callable, Sequence

from ..errors import ConfigError
from .questions.dataset import EmbeddingQAFinetuneDataset
from .relevance import judge_ids, judge_texts, text_of
from .retrieval_metrics import Judged, RetrievalMetric, resolve_metrics

DEFAULT_METRICS = ("hit_rate", "mrr", "precision", "recall", "ndcg")


@dataclass(frozen=True, slots=True)
class RetrievalMetricResult:
    """One metric's value (LlamaIndex's name)."""

    score: float


@dataclass(slots=True)
class RetrievalEvalResult:
    """One question's ranking and its metrics."""

    query: str
    expected_ids: list[str]
    retrieved_ids: list[str]
    retrieved_texts: list[str]
    metric_vals_dict: dict[str, float]
    expected_texts: list[str] | None = None
    relevant: list[bool] = field(default_factory=list)  # per rank: a relevant passage?

    @property
    def metric_dict(self) -> dict[str, RetrievalMetricResult]:
        return {k: RetrievalMetricResult(v) for k, v in self.metric_vals_dict.items()}

    def __str__(self) -> str:
        return f"Query: {self.query}\nMetrics: {self.metric_vals_dict!s}\n"


def judge(retrieved: Sequence[Any], expected_ids: Sequence[str] = (),
          expected_texts: Sequence[str] | None = None, *,
          relevant_total: int | None = None) -> Judged:
    """A ranking judged by ids (or sources) when given, else by expected texts."""
    if expected_ids:
        return judge_ids(expected_ids, retrieved, relevant_total=relevant_total)
    return judge_texts(expected_texts or (), retrieved, relevant_total=relevant_total)


class RetrieverEvaluator:
    """Retrieval metrics of a retriever over questions with known relevant passages."""

    def __init__(self, metrics: Sequence[RetrievalMetric], retriever: Any = None) -> None:
        if not metrics:
            raise ConfigError("RetrieverEvaluator needs at least one metric: use "
                              "from_metric_names(['hit_rate', 'mrr'], retriever=...)")
        if retriever is not None and not hasattr(retriever, "retrieve"):
            raise ConfigError(f"{retriever!r} has no retrieve(query): pass a retriever")
        self.metrics = list(metrics)
        self.retriever = retriever

    @classmethod
    def from_metric_names(cls, metric_names: Sequence[str] = DEFAULT_METRICS,
                          retriever: Any = None) -> RetrieverEvaluator:
        """An evaluator computing the named metrics ("hit_rate", "mrr", "ndcg@10" ...)."""
        return cls(resolve_metrics(list(metric_names)), retriever=retriever)

    @property
    def metric_names(self) -> list[str]:
        return [m.metric_name for m in self.metrics]

    def evaluate(self, query: str, expected_ids: Sequence[str] = (),
                 expected_texts: Sequence[str] | None = None, *,
                 relevant_total: int | None = None) -> RetrievalEvalResult:
        """Retrieve ``query`` and score the ranking against what was expected."""
        if self.retriever is None:
            raise ConfigError("this evaluator has no retriever: pass retriever= to "
                              "from_metric_names, or score rankings with evaluate_ranking")
        retrieved = self.retriever.retrieve(query)
        return self.evaluate_ranking(query, retrieved, expected_ids, expected_texts,
                                     relevant_total=relevant_total)

    def evaluate_ranking(self, query: str, retrieved: Sequence[Any],
                         expected_ids: Sequence[str] = (),
                         expected_texts: Sequence[str] | None = None, *,
                         relevant_total: int | None = None) -> RetrievalEvalResult:
        """Score a ranking already retrieved (nodes, scored nodes, ids or texts)."""
        if not expected_ids and not expected_texts:
            raise ConfigError(f"nothing expected for {query!r}: give expected_ids (passage "
                              "ids or sources) or expected_texts")
        judged = judge(retrieved, expected_ids, expected_texts, relevant_total=relevant_total)
        return RetrievalEvalResult(
            query=query,
            expected_ids=list(expected_ids),
            retrieved_ids=[_id_of(item) for item in retrieved],
            retrieved_texts=[text_of(item) for item in retrieved],
            metric_vals_dict={m.metric_name: m(judged) for m in self.metrics},
            expected_texts=None if expected_texts is None else list(expected_texts),
            relevant=judged.relevant,
        )

    def evaluate_dataset(self, dataset: EmbeddingQAFinetuneDataset, *,
                         on_progress: Callable[[int, int], None] | None = None
                         ) -> list[RetrievalEvalResult]:
        """Every question of ``dataset`` that names what is relevant, in order."""
        ids = [qid for qid in dataset.queries if dataset.expected_ids(qid)]
        results = []
        for done, qid in enumerate(ids, start=1):
            results.append(self.evaluate(dataset.queries[qid], dataset.expected_ids(qid)))
            if on_progress:
                on_progress(done, len(ids))
        return results

    async def aevaluate(self, query: str, expected_ids: Sequence[str] = (),
                        expected_texts: Sequence[str] | None = None) -> RetrievalEvalResult:
        return await asyncio.to_thread(self.evaluate, query, expected_ids, expected_texts)

    async def aevaluate_dataset(self, dataset: EmbeddingQAFinetuneDataset,
                                workers: int = 2, show_progress: bool = False
                                ) -> list[RetrievalEvalResult]:
        """``evaluate_dataset`` in a worker thread (``workers`` and ``show_progress`` are
        accepted for LlamaIndex's signature; retrieval here is CPU-bound and runs in order)."""
        return await asyncio.to_thread(self.evaluate_dataset, dataset)


def mean_metrics(results: Sequence[RetrievalEvalResult]) -> dict[str, float]:
    """Each metric's mean over ``results`` (empty when there are none)."""
    if not results:
        return {}
    return {name: fmean(r.metric_vals_dict[name] for r in results)
            for name in results[0].metric_vals_dict}


def _id_of(item: Any) -> str:
    if isinstance(item, str):
        return item
    return str(getattr(getattr(item, "node", item), "node_id", ""))
