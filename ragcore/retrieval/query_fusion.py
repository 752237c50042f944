"""Query fusion: the question rewritten into several search queries by the LLM, every query
run on every retriever, the rankings fused into one (LlamaIndex's ``QueryFusionRetriever``).

The plan is written once without I/O: ``query_generation_messages`` is the prompt
(``ragcore.prompts.retrieval.QUERY_GENERATION``), ``parse_queries`` reads the model's reply (one
query per line; numbering, bullets and quotes stripped, duplicates and the original dropped);
``QueryFusionRetriever.retrieve`` is the short driver. Fusion is ``ragcore.search.fusion`` (``reciprocal_rank``, ``relative_score``,
``dist_based_score``) or ``simple`` (each node's best score). With the offline extractive
backend, which writes no new text, only the original question is searched, and the trace says
so. Unlike ``HybridRetriever``, which fuses two views of one question, this fuses several
questions.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..errors import ConfigError
from ..search.fusion import FUSION_METHODS, fuse
from ..llms.base import LLM, complete_traced, writes_free_text
from ..prompts.retrieval import QUERY_GENERATION
from .retrievers import Retriever
from ..trace import Trace
from ..types import Message, ScoredNode

FUSION_MODES = ("simple", *FUSION_METHODS)
_LIST_MARK = re.compile(r"^\s*(?:[-*•]|\d+[.)]|query\s*\d*:)\s*", re.IGNORECASE)


def query_generation_messages(query: str, count: int) -> list[Message]:
    """The prompt asking for ``count`` search queries for ``query``."""
    return QUERY_GENERATION.format(count=str(count), query=query)


def parse_queries(reply: str, query: str, count: int) -> list[str]:
    """Up to ``count`` distinct queries from the model's reply (never the original again)."""
    seen = {query.strip().lower()}
    queries = []
    for line in reply.splitlines():
        text = _LIST_MARK.sub("", line).strip().strip('"\'').strip()
        if text and text.lower() not in seen:
            seen.add(text.lower())
            queries.append(text)
    return queries[:count]


def simple_fusion(rankings: Sequence[Sequence[ScoredNode]]) -> list[ScoredNode]:
    """Every node once, with its best score, best first (LlamaIndex's ``simple`` mode)."""
    best: dict[str, ScoredNode] = {}
    for ranking in rankings:
        for scored in ranking:
            kept = best.get(scored.node.node_id)
            if kept is None or (scored.score or 0.0) > (kept.score or 0.0):
                best[scored.node.node_id] = scored
    return sorted(best.values(), key=lambda n: -(n.score or 0.0))


class QueryFusionRetriever:
    """Several generated queries on several retrievers, fused into the ``similarity_top_k``
    best nodes."""

    def __init__(
        self,
        retrievers: Sequence[Retriever],
        *,
        llm: LLM,
        similarity_top_k: int = 4,
        num_queries: int = 4,
        mode: str = "reciprocal_rank",
    ) -> None:
        retrievers = list(retrievers)
        if not retrievers or not all(callable(getattr(r, "retrieve", None)) for r in retrievers):
            raise ConfigError("QueryFusionRetriever needs a list of retrievers (retrieve(query))")
        if not isinstance(num_queries, int) or isinstance(num_queries, bool) or num_queries < 1:
            raise ConfigError(f"num_queries ({num_queries!r}) must be at least 1 (the question "
                              "itself counts as one)")
        if not isinstance(similarity_top_k, int) or similarity_top_k < 1:
            raise ConfigError(f"similarity_top_k ({similarity_top_k!r}) must be at least 1")
        mode = "reciprocal_rank" if mode == "reciprocal_rerank" else mode  # LlamaIndex's name
        if mode not in FUSION_MODES:
            raise ConfigError(f"mode {mode!r} is not one of {', '.join(FUSION_MODES)}")
        self.retrievers = retrievers
        self.llm = llm
        self.similarity_top_k = similarity_top_k
        self.num_queries = num_queries
        self.mode = mode

    def generate_queries(self, query: str, trace: Trace | None = None) -> list[str]:
        """The question and up to ``num_queries - 1`` generated queries."""
        extra = self.num_queries - 1
        if extra == 0:
            return [query]
        if not writes_free_text(self.llm):
            if trace is not None:
                trace.notes["query_fusion"] = ("the extractive backend writes no queries: only "
                                               "the question itself was searched")
            return [query]
        reply = complete_traced(self.llm, query_generation_messages(query, extra), trace,
                                "generate queries")
        return [query, *parse_queries(reply, query, extra)]

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        queries = self.generate_queries(query, trace)
        if trace is not None:
            trace.notes["fusion_queries"] = queries
        rankings = [r.retrieve(q, trace=trace) for q in queries for r in self.retrievers]
        stage = trace.stage("fuse queries", queries=len(queries), mode=self.mode) if trace else None
        if stage is None:
            return self._fused(rankings)
        with stage as detail:
            fused = self._fused(rankings)
            detail["nodes_out"] = len(fused)
        return fused

    def _fused(self, rankings: list[list[ScoredNode]]) -> list[ScoredNode]:
        if self.mode == "simple":
            return simple_fusion(rankings)[: self.similarity_top_k]
        return fuse(rankings, method=self.mode)[: self.similarity_top_k]  # type: ignore[arg-type]
