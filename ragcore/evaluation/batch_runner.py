"""``BatchEvalRunner``: several answer evaluators over many questions, LlamaIndex's shape, and
over every (retriever x response mode) setup of an index, ragcore's addition.

``BatchEvalRunner({"faithfulness": FaithfulnessEvaluator(), ...}, workers=4)`` then
``evaluate_queries(query_engine, queries=[...])`` (asks the engine, evaluates each answer),
``evaluate_responses(queries=, responses=)`` or ``evaluate_response_strs(queries=,
response_strs=, contexts_list=)``: each returns ``{evaluator name: [EvaluationResult, ...]}`` in
question order. Extra lists (``reference=[...]``) go to the evaluators question by question.
``evaluate_setups`` runs ``setups.run_setups`` with these evaluators and returns an
``EvaluationReport`` (leaderboard, rows). ``default_evaluators`` picks the four metrics for an
LLM and an embedder: the LLM judges when it can write text, else the offline proxies.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

from ..errors import ConfigError
from .answer_evaluators import (
    CorrectnessEvaluator,
    FaithfulnessEvaluator,
    RelevancyEvaluator,
    SemanticSimilarityEvaluator,
)
from .questions.dataset import EmbeddingQAFinetuneDataset
from .embedding_cache import CachedEmbedder
from .report import EvaluationReport
from .result import BaseEvaluator, EvaluationResult
from .setups import EvalProgress, run_setups


def default_evaluators(judge: Any = None, *, embedder: Any = None) -> dict[str, BaseEvaluator]:
    """Faithfulness, relevancy and correctness (judged by ``judge`` if it writes text, else
    offline proxies) and, with an embedder, semantic similarity; they share one
    ``CachedEmbedder`` around ``embedder``, so each text is embedded once."""
    if embedder is not None and not isinstance(embedder, CachedEmbedder):
        embedder = CachedEmbedder(embedder)
    evaluators: dict[str, BaseEvaluator] = {
        "faithfulness": FaithfulnessEvaluator(judge, embedder=embedder),
        "relevancy": RelevancyEvaluator(judge, embedder=embedder),
        "correctness": CorrectnessEvaluator(judge, embedder=embedder),
    }
    if embedder is not None:
        evaluators["semantic_similarity"] = SemanticSimilarityEvaluator(embedder)
    return evaluators


class BatchEvalRunner:
    """Runs evaluators over many answers, ``workers`` at a time."""

    def __init__(self, evaluators: dict[str, BaseEvaluator], workers: int = 2,
                 show_progress: bool = False) -> None:
        if not evaluators:
            raise ConfigError("BatchEvalRunner needs evaluators: {'faithfulness': "
                              "FaithfulnessEvaluator(), ...}")
        if workers < 1:
            raise ConfigError(f"workers ({workers}) must be at least 1")
        self.evaluators = dict(evaluators)
        self.workers = workers
        self.show_progress = show_progress  # LlamaIndex's flag; progress is on_progress here

    def evaluate_response_strs(self, queries: Sequence[str] | None = None,
                               response_strs: Sequence[str] | None = None,
                               contexts_list: Sequence[Sequence[str]] | None = None,
                               **eval_kwargs_lists: Sequence[Any]
                               ) -> dict[str, list[EvaluationResult]]:
        """Evaluate answers given as text, with their contexts."""
        response_strs = list(response_strs or [])
        queries = list(queries or [None] * len(response_strs))
        contexts_list = list(contexts_list or [[]] * len(response_strs))
        _check_lengths(queries=queries, response_strs=response_strs,
                       contexts_list=contexts_list, **eval_kwargs_lists)
        jobs = [(name, i) for name in self.evaluators for i in range(len(response_strs))]

        def one(job: tuple[str, int]) -> EvaluationResult:
            name, i = job
            extra = {k: v[i] for k, v in eval_kwargs_lists.items()}
            return self.evaluators[name].evaluate(queries[i], response_strs[i],
                                                  contexts_list[i], **extra)

        results = self._map(one, jobs)
        return {name: [r for (n, _), r in zip(jobs, results) if n == name]
                for name in self.evaluators}

    def evaluate_responses(self, queries: Sequence[str] | None = None,
                           responses: Sequence[Any] | None = None,
                           **eval_kwargs_lists: Sequence[Any]
                           ) -> dict[str, list[EvaluationResult]]:
        """Evaluate ``Response`` objects: their text, and their source nodes as contexts."""
        responses = list(responses or [])
        return self.evaluate_response_strs(
            queries, [r.text for r in responses],
            [[s.node.text for s in r.source_nodes] for r in responses], **eval_kwargs_lists)

    def evaluate_queries(self, query_engine: Any, queries: Sequence[str] = (),
                         **eval_kwargs_lists: Sequence[Any]
                         ) -> dict[str, list[EvaluationResult]]:
        """Ask ``query_engine`` each question, then evaluate the answers."""
        queries = list(queries)
        responses = self._map(lambda q: _drained(query_engine.query(q)), queries)
        return self.evaluate_responses(queries, responses, **eval_kwargs_lists)

    async def aevaluate_queries(self, query_engine: Any, queries: Sequence[str] = (),
                                **eval_kwargs_lists: Sequence[Any]
                                ) -> dict[str, list[EvaluationResult]]:
        return await asyncio.to_thread(self.evaluate_queries, query_engine, queries,
                                       **eval_kwargs_lists)

    async def aevaluate_responses(self, queries: Sequence[str] | None = None,
                                  responses: Sequence[Any] | None = None,
                                  **eval_kwargs_lists: Sequence[Any]
                                  ) -> dict[str, list[EvaluationResult]]:
        return await asyncio.to_thread(self.evaluate_responses, queries, responses,
                                       **eval_kwargs_lists)

    def evaluate_setups(self, index: Any, dataset: EmbeddingQAFinetuneDataset, *, llm: Any,
                        modes: Sequence[str] = ("compact",),
                        retrievers: Sequence[str] = ("hybrid",), top_k: int = 4,
                        search_mode: str = "hybrid",
                        on_progress: Callable[[EvalProgress], None] | None = None,
                        cancel: Callable[[], bool] | None = None, index_name: str = ""
                        ) -> EvaluationReport:
        """Every (retriever x mode) over ``dataset``'s questions with these evaluators."""
        return run_setups(index, dataset, llm=llm, modes=modes, retrievers=retrievers,
                          evaluators=self.evaluators, top_k=top_k, search_mode=search_mode,
                          workers=self.workers, on_progress=on_progress, cancel=cancel,
                          index_name=index_name)

    def _map(self, function: Callable[[Any], Any], items: Sequence[Any]) -> list[Any]:
        if self.workers == 1 or len(items) < 2:
            return [function(item) for item in items]
        with ThreadPoolExecutor(max_workers=self.workers,
                                thread_name_prefix="ragcore-eval") as pool:
            return list(pool.map(function, items))


def _drained(response: Any) -> Any:
    _ = response.text  # run the synthesis in the worker, not later in the caller
    return response


def _check_lengths(**lists: Sequence[Any]) -> None:
    lengths = {name: len(values) for name, values in lists.items()}
    if len(set(lengths.values())) > 1:
        raise ConfigError(f"the lists differ in length ({lengths}): give one value per question")
