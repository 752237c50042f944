"""``EvaluationResult`` and the base every answer evaluator shares.

LlamaIndex's shape: ``evaluate(query=, response=, contexts=)`` gives an ``EvaluationResult``
(query, response, contexts, passing, score, feedback), ``evaluate_response(query=,
response=Response)`` takes the contexts from the response's source nodes, ``aevaluate`` runs the
same code in a worker thread. ragcore adds ``method``: how the verdict was reached (a named
model as judge, or which offline proxy), so a leaderboard never passes a proxy off as a judge.
A judge reply that cannot be read is a result with ``invalid_result`` set and the reason, never
an exception. The base holds the judge-or-proxy choice the evaluators share.
"""

from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

from ..errors import ConfigError
from ..llms.base import writes_free_text
from .judge import Verdict


@dataclass(slots=True)
class EvaluationResult:
    """One evaluator's verdict on one answer."""

    query: str | None = None
    response: str | None = None
    contexts: list[str] = field(default_factory=list)
    passing: bool | None = None
    score: float | None = None
    feedback: str | None = None
    invalid_result: bool = False
    invalid_reason: str | None = None
    evaluator: str = ""  # "faithfulness", "relevancy", "correctness", "semantic_similarity"
    method: str = ""  # "judge: gpt-4o-mini" or "offline proxy: ..."

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class BaseEvaluator(ABC):
    """An answer metric: subclasses implement ``evaluate``; the rest is shared. ``llm`` judges
    when it can write text; else (None, or the extractive backend) ``proxy`` measures."""

    name = "evaluator"
    needs_reference = False  # correctness and similarity compare with an expected answer
    proxy = ""  # what the offline measure is, in words

    def __init__(self, llm: Any = None, *, embedder: Any = None) -> None:
        if llm is not None and not hasattr(llm, "stream"):
            raise ConfigError(f"{llm!r} is no language model (no stream()): pass an LLM or None")
        self.llm = llm if llm is not None and writes_free_text(llm) else None
        self.embedder = embedder

    @property
    def method(self) -> str:
        """How this evaluator measures: "judge: <model>" or "offline proxy: <what>"."""
        if self.llm is None:
            return f"offline proxy: {self.proxy}"
        return f"judge: {getattr(self.llm, 'model', '') or type(self.llm).__name__}"

    @abstractmethod
    def evaluate(self, query: str | None = None, response: str | None = None,
                 contexts: Sequence[str] | None = None, *, reference: str | None = None
                 ) -> EvaluationResult:
        """Score one answer (``response``) to ``query`` from ``contexts`` (and ``reference``)."""

    def evaluate_response(self, query: str | None = None, response: Any = None, *,
                          reference: str | None = None) -> EvaluationResult:
        """Evaluate a ``Response``: its text, and its source nodes as the contexts."""
        text = None if response is None else getattr(response, "text", str(response))
        contexts = [s.node.text for s in getattr(response, "source_nodes", None) or []]
        return self.evaluate(query, text, contexts, reference=reference)

    async def aevaluate(self, query: str | None = None, response: str | None = None,
                        contexts: Sequence[str] | None = None, *,
                        reference: str | None = None) -> EvaluationResult:
        return await asyncio.to_thread(self.evaluate, query, response, contexts,
                                       reference=reference)

    async def aevaluate_response(self, query: str | None = None, response: Any = None, *,
                                 reference: str | None = None) -> EvaluationResult:
        return await asyncio.to_thread(self.evaluate_response, query, response,
                                       reference=reference)

    def _result(self, query: str | None, response: str | None, contexts: Sequence[str] | None,
                **verdict: Any) -> EvaluationResult:
        verdict.setdefault("method", self.method)
        return EvaluationResult(query=query, response=response, contexts=list(contexts or []),
                                evaluator=self.name, **verdict)

    def _from_verdict(self, verdict: Verdict, query: str | None, response: str | None,
                      contexts: Sequence[str] | None, passing: bool | None = None
                      ) -> EvaluationResult:
        """The result of a judge's verdict; an unreadable reply or a failed call is invalid."""
        if verdict.error:
            return self._invalid(query, response, contexts, verdict.error)
        return self._result(query, response, contexts, score=verdict.score,
                            passing=verdict.passing if passing is None else passing,
                            feedback=verdict.reason)

    def _invalid(self, query: str | None, response: str | None,
                 contexts: Sequence[str] | None, reason: str) -> EvaluationResult:
        return self._result(query, response, contexts, invalid_result=True,
                            invalid_reason=reason, feedback=reason)
