"""Retrievers: a question in, scored nodes out, best first.

``Retriever`` is the protocol the query and chat engines depend on. ``VectorRetriever`` embeds the
question with the index's embedder and searches the index's vector store, recording an "embed query"
and a "retrieve" stage in the caller's trace; in "mmr" mode it over-fetches candidates by similarity
and reranks them with maximal marginal relevance (``ragcore.search.mmr``). ``KeywordRetriever``
ranks nodes by BM25 over their words (``ragcore.index.keyword``; a "keyword search" stage), and
``HybridRetriever`` runs both and merges the two rankings (``ragcore.search.fusion``; a "fuse"
stage). Hybrid is the default mode: on ``benchmarks/retrieval`` it finds more of the answers than
either side alone. Scores differ by retriever: cosine similarity, BM25 (unbounded), or fused (0..1
for the default relative-score fusion, 1 meaning best by both), so a ``SimilarityPostprocessor``
cutoff only means "similarity" after a vector retriever. ``make_retriever`` picks one by mode name,
for ``VectorStoreIndex.as_retriever``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import (
    Any, ContextManager, Literal, Protocol, Sequence, runtime_checkable,
)

import numpy as np

from ..search.bm25 import B, K1, check_bm25
from ..embeddings.base import Embedder, embed_query
from ..errors import ConfigError
from ..search.fusion import RRF_K, FusionMethod, check_fusion_method, fuse, with_side_heads
from ..search.mmr import mmr_order
from ..stores.base import VectorStore
from ..stores.filters import MetadataFilters, as_filters
from ..trace import Trace
from ..types import ScoredNode



class SearchableIndex(Protocol):
    """What retrievers use of a VectorStoreIndex (a protocol, so retrieval never imports it)."""

    embed_model_name: str

    @property
    def embedder(self) -> Embedder: ...

    @property
    def store(self) -> VectorStore: ...

    def __len__(self) -> int: ...

    def search(self, vector: np.ndarray, *, top_k: int, filters: MetadataFilters | None,
               doc_ids: Sequence[str] | None) -> list[ScoredNode]: ...

    def keyword_search(self, query: str, *, top_k: int, filters: MetadataFilters | None,
                       doc_ids: Sequence[str] | None, k1: float, b: float) -> list[ScoredNode]: ...

    def keyword_index(self) -> Any: ...

    def reading(self) -> AbstractContextManager[Any]: ...

    def get_vectors(self, node_ids: Sequence[str]) -> np.ndarray: ...

RetrievalMode = Literal["similarity", "mmr", "keyword", "hybrid"]
RETRIEVAL_MODES: tuple[str, ...] = ("similarity", "mmr", "keyword", "hybrid")
VectorMode = Literal["similarity", "mmr"]
VECTOR_MODES: tuple[str, ...] = ("similarity", "mmr")
DEFAULT_MODE: RetrievalMode = "hybrid"
MMR_MIN_FETCH = 20  # MMR picks from at least this many candidates (see VectorRetriever)
# Hybrid search fuses this many candidates per top-k result from each side, at least the minimum.
HYBRID_DEPTH = 5
HYBRID_MIN_CANDIDATES = 20
# Each side's first similarity_top_k // 4 nodes keep a place in the fused top k
# (``fusion.with_side_heads``): at top 12, 2 more questions of 65 retrieve their gold
# (benchmarks/answers/questions.jsonl) and 2 of 78 of the grounded set; at top 4, none moves.
HYBRID_HEAD_SHARE = 4


@runtime_checkable
class Retriever(Protocol):
    """Finds the nodes most relevant to a question."""

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """Scored nodes, best first."""
        ...


def _stage(trace: Trace | None, name: str, **detail: Any) -> ContextManager[dict[str, Any]]:
    return trace.stage(name, **detail) if trace is not None else nullcontext({})


def _check_top_k(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {value!r}")
    if value < 1:
        raise ConfigError(f"{name} ({value}) must be at least 1")


def _check_doc_ids(doc_ids: Sequence[str] | None) -> None:
    if isinstance(doc_ids, str):
        raise ConfigError("doc_ids must be a list of document ids, not a single string")


def query_text(query: Any) -> str:
    """The question as text: a string, or LlamaIndex's ``QueryBundle`` (its ``query_str``)."""
    query = getattr(query, "query_str", query)
    if not isinstance(query, str):
        raise ConfigError(f"query must be a string (or a QueryBundle), got {type(query).__name__}")
    return query


def _hits(results: Sequence[ScoredNode]) -> list[dict[str, Any]]:
    return [
        {"node_id": r.node.node_id, "score": r.score, "file_name": r.file_name} for r in results
    ]


class VectorRetriever:
    """Top-k similarity (or MMR) search over a VectorStoreIndex.

    In "mmr" mode the store is asked for ``mmr_fetch_k`` candidates (default
    ``max(20, 4 * similarity_top_k)``) by plain similarity, and MMR picks ``similarity_top_k``
    of them with the store's metric; each result keeps its similarity to the question as its
    score, so a similarity cutoff keeps its meaning. Fetching more candidates finds more diverse
    results at the cost of one larger store query and a few more vectors fetched.
    """

    def __init__(
        self,
        index: SearchableIndex,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        mode: VectorMode = "similarity",
        mmr_threshold: float = 0.5,
        mmr_fetch_k: int | None = None,
    ) -> None:
        _check_top_k("similarity_top_k", similarity_top_k)
        if mode not in VECTOR_MODES:
            choices = ", ".join(VECTOR_MODES)
            raise ConfigError(f"mode {mode!r} is not supported: use one of {choices}")
        if not 0.0 <= mmr_threshold <= 1.0:
            raise ConfigError(f"mmr_threshold ({mmr_threshold}) must be between 0 and 1")
        if mmr_fetch_k is None:
            mmr_fetch_k = max(MMR_MIN_FETCH, 4 * similarity_top_k)
        _check_top_k("mmr_fetch_k", mmr_fetch_k)
        if mmr_fetch_k < similarity_top_k:
            raise ConfigError(
                f"mmr_fetch_k ({mmr_fetch_k}) must be at least similarity_top_k "
                f"({similarity_top_k}): MMR picks its results among the fetched candidates"
            )
        _check_doc_ids(doc_ids)
        self.index = index
        self.similarity_top_k = similarity_top_k
        self.filters = as_filters(filters)
        self.doc_ids = list(doc_ids) if doc_ids is not None else None
        self.mode = mode
        self.mmr_threshold = mmr_threshold
        self.mmr_fetch_k = mmr_fetch_k

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """Embed ``query`` and return the nearest nodes, best first."""
        return self.retrieve_by_vector(self.embed(query_text(query), trace), trace=trace)

    def embed(self, query: str, trace: Trace | None = None) -> np.ndarray:
        """The query's vector, by the index's embedder (a trace stage)."""
        embedder = self.index.embedder
        with _stage(trace, "embed query", model=self.index.embed_model_name) as detail:
            # The first query of a process pays for loading the model: say so in the trace.
            detail["loaded model"] = not getattr(embedder, "loaded", True)
            vector = embed_query(embedder, query)
            detail["dim"] = int(vector.shape[0])
        return vector

    def retrieve_by_vector(
        self, vector: np.ndarray, *, trace: Trace | None = None
    ) -> list[ScoredNode]:
        """Search with a precomputed query vector (benchmarks, hybrid retrievers)."""
        mmr = self.mode == "mmr"
        with _stage(
            trace, "retrieve", top_k=self.similarity_top_k, mode=self.mode, nodes=len(self.index)
        ) as detail:
            results = self.index.search(
                vector,
                top_k=self.mmr_fetch_k if mmr else self.similarity_top_k,
                filters=self.filters,
                doc_ids=self.doc_ids,
            )
            if mmr:
                detail["candidates"] = len(results)
                results = self._rerank(results)
            detail["hits"] = _hits(results)
        return results

    def _rerank(self, candidates: list[ScoredNode]) -> list[ScoredNode]:
        """MMR's pick of ``similarity_top_k`` among the candidates, in MMR order."""
        if len(candidates) <= 1:
            return candidates
        vectors = self.index.get_vectors([c.node.node_id for c in candidates])
        order = mmr_order(
            vectors,
            np.array([c.score for c in candidates]),
            metric=self.index.store.metric,
            top_k=self.similarity_top_k,
            lam=self.mmr_threshold,
        )
        return [candidates[i] for i in order]


class KeywordRetriever:
    """Top-k BM25 search over a VectorStoreIndex's nodes (LlamaIndex's BM25Retriever).

    Scores are BM25 scores (unbounded, 0 means no shared term); nodes sharing no word with the
    question are never returned, so fewer than ``similarity_top_k`` nodes may come back. ``k1``
    and ``b`` are BM25's term-saturation and length-penalty parameters (``ragcore.search.bm25``).
    """

    def __init__(
        self,
        index: SearchableIndex,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        k1: float = K1,
        b: float = B,
    ) -> None:
        _check_top_k("similarity_top_k", similarity_top_k)
        _check_doc_ids(doc_ids)
        check_bm25(k1, b)
        self.index = index
        self.similarity_top_k = similarity_top_k
        self.filters = as_filters(filters)
        self.doc_ids = list(doc_ids) if doc_ids is not None else None
        self.k1 = k1
        self.b = b

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """The nodes whose words best match ``query``'s, best first."""
        query = query_text(query)
        with _stage(trace, "keyword search", top_k=self.similarity_top_k) as detail:
            keywords = self.index.keyword_index()
            # The first keyword query after a change builds the postings: say so in the trace.
            detail["built index"] = keywords.searches == 0
            results = self.index.keyword_search(
                query, top_k=self.similarity_top_k, filters=self.filters, doc_ids=self.doc_ids,
                k1=self.k1, b=self.b,
            )
            detail["nodes"] = len(keywords)
            detail["hits"] = _hits(results)
        return results


class HybridRetriever:
    """Vector and BM25 search fused into one ranking (QueryFusionRetriever without rewriting).

    Each side fetches ``candidates`` nodes (default ``max(20, 5 * similarity_top_k)``) and
    ``fusion`` merges them (``ragcore.search.fusion``). The default, "relative_score", scales each
    side's scores to 0..1 over its candidates and adds ``alpha`` times the meaning score to
    ``1 - alpha`` times the word score, so a node both sides rank high wins, and a node only
    one side found can still win by a wide margin on that side. "reciprocal_rank" ignores
    scores (``sum(1 / (rrf_k + rank))``); it suffers from deep candidate lists, since a node
    both sides rank near 15th (2/75) beats the node one side ranks first (1/61).
    ``benchmarks/retrieval`` prints how each choice does. Reported scores are fused scores,
    not similarities; the "fuse" trace stage keeps each hit's similarity and BM25 score.

    ``side_heads`` (default ``similarity_top_k // 4``) of each side's best nodes always keep a
    place in the top k: score fusion favours nodes both sides hold, so the one chunk naming a
    rare name (BM25's second, meaning's 250th) could otherwise fall to fortieth.
    """

    def __init__(
        self,
        index: SearchableIndex,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        fusion: FusionMethod = "relative_score",
        alpha: float = 0.5,
        candidates: int | None = None,
        rrf_k: float = RRF_K,
        k1: float = K1,
        b: float = B,
        side_heads: int | None = None,
    ) -> None:
        _check_top_k("similarity_top_k", similarity_top_k)
        if side_heads is None:
            side_heads = similarity_top_k // HYBRID_HEAD_SHARE
        if isinstance(side_heads, bool) or not isinstance(side_heads, int) or side_heads < 0:
            raise ConfigError(
                f"side_heads ({side_heads!r}) must be a whole number >= 0 (0 keeps none)")
        if candidates is None:
            candidates = max(HYBRID_MIN_CANDIDATES, HYBRID_DEPTH * similarity_top_k)
        _check_top_k("candidates", candidates)
        check_fusion_method(fusion)
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
            raise ConfigError(
                f"alpha ({alpha!r}) must be between 0 (words only) and 1 (meaning only); "
                "0.5 weighs both equally"
            )
        if isinstance(rrf_k, bool) or not isinstance(rrf_k, (int, float)) or rrf_k < 0:
            raise ConfigError(f"rrf_k ({rrf_k!r}) must be a number >= 0 (60 is the usual value)")
        self.similarity_top_k = similarity_top_k
        self.candidates = candidates
        self.fusion = fusion
        self.alpha = float(alpha)
        self.rrf_k = rrf_k
        self.side_heads = side_heads
        per_side = max(candidates, similarity_top_k)
        self.vector = VectorRetriever(
            index, similarity_top_k=per_side, filters=filters, doc_ids=doc_ids
        )
        self.keyword = KeywordRetriever(
            index, similarity_top_k=per_side, filters=filters, doc_ids=doc_ids, k1=k1, b=b
        )

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """Both rankings of ``query``, fused; best first."""
        query = query_text(query)
        vector = self.vector.embed(query, trace)
        with self.vector.index.reading():  # both sides see one state of the index
            by_meaning = self.vector.retrieve_by_vector(vector, trace=trace)
            by_words = self.keyword.retrieve(query, trace=trace)
        with _stage(trace, "fuse", **self._fuse_detail()) as detail:
            fused = with_side_heads(
                fuse([by_meaning, by_words], method=self.fusion,
                     weights=(self.alpha, 1.0 - self.alpha), rrf_k=self.rrf_k),
                [by_meaning, by_words], heads=self.side_heads, top_k=self.similarity_top_k,
            )
            similarity = {r.node.node_id: r.score for r in by_meaning}
            bm25 = {r.node.node_id: r.score for r in by_words}
            detail["hits"] = [
                {**hit, "similarity": similarity.get(i), "bm25": bm25.get(i)}
                for hit in _hits(fused)
                for i in [hit["node_id"]]
            ]
        return fused

    def _fuse_detail(self) -> dict[str, Any]:
        """How the rankings are fused, for the trace."""
        if self.fusion == "reciprocal_rank":
            return {"method": self.fusion, "rrf_k": self.rrf_k, "candidates": self.candidates,
                    "side_heads": self.side_heads}
        return {"method": self.fusion, "alpha": self.alpha, "candidates": self.candidates,
                "side_heads": self.side_heads}


def make_retriever(
    index: SearchableIndex,
    *,
    mode: RetrievalMode = DEFAULT_MODE,
    similarity_top_k: int = 4,
    filters: MetadataFilters | dict[str, Any] | None = None,
    doc_ids: Sequence[str] | None = None,
    mmr_threshold: float = 0.5,
    mmr_fetch_k: int | None = None,
) -> Retriever:
    """The retriever for a mode of ``RETRIEVAL_MODES`` (what ``index.as_retriever`` returns)."""
    check_retrieval_mode(mode)
    common: dict[str, Any] = {
        "similarity_top_k": similarity_top_k, "filters": filters, "doc_ids": doc_ids,
    }
    if mode == "keyword":
        return KeywordRetriever(index, **common)
    if mode == "hybrid":
        return HybridRetriever(index, **common)
    return VectorRetriever(
        index, mode=mode, mmr_threshold=mmr_threshold, mmr_fetch_k=mmr_fetch_k, **common
    )


def check_retrieval_mode(mode: str) -> None:
    """Raise ConfigError naming the choices unless ``mode`` is one of ``RETRIEVAL_MODES``."""
    if mode not in RETRIEVAL_MODES:
        choices = ", ".join(RETRIEVAL_MODES)
        raise ConfigError(f"retrieval mode {mode!r} is not supported: use one of {choices}")
