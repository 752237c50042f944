"""Retrievers: a question in, scored nodes out, best first.

``Retriever`` is the protocol the query and chat engines depend on. ``VectorRetriever`` embeds the
question with the index's embedder and searches the index's vector store, recording an
"embed query" and a "retrieve" stage in the caller's trace.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import TYPE_CHECKING, Any, ContextManager, Protocol, Sequence, runtime_checkable

import numpy as np

from .embeddings.base import embed_query
from .errors import ConfigError
from .stores.base import QUERY_MODES
from .stores.filters import MetadataFilters, as_filters
from .trace import Trace
from .types import ScoredNode

if TYPE_CHECKING:
    from .index import VectorStoreIndex
    from .stores.base import QueryMode


@runtime_checkable
class Retriever(Protocol):
    """Finds the nodes most relevant to a question."""

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """Scored nodes, best first."""
        ...


def _stage(trace: Trace | None, name: str, **detail: Any) -> ContextManager[dict[str, Any]]:
    return trace.stage(name, **detail) if trace is not None else nullcontext({})


class VectorRetriever:
    """Top-k similarity (or MMR) search over a VectorStoreIndex."""

    def __init__(
        self,
        index: VectorStoreIndex,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        mode: QueryMode = "similarity",
        mmr_threshold: float = 0.5,
    ) -> None:
        if isinstance(similarity_top_k, bool) or not isinstance(similarity_top_k, int):
            raise ConfigError(f"similarity_top_k must be an integer, got {similarity_top_k!r}")
        if similarity_top_k < 1:
            raise ConfigError(f"similarity_top_k ({similarity_top_k}) must be at least 1")
        if mode not in QUERY_MODES:
            choices = ", ".join(QUERY_MODES)
            raise ConfigError(f"mode {mode!r} is not supported: use one of {choices}")
        if not 0.0 <= mmr_threshold <= 1.0:
            raise ConfigError(f"mmr_threshold ({mmr_threshold}) must be between 0 and 1")
        if isinstance(doc_ids, str):
            raise ConfigError("doc_ids must be a list of document ids, not a single string")
        self.index = index
        self.similarity_top_k = similarity_top_k
        self.filters = as_filters(filters)
        self.doc_ids = list(doc_ids) if doc_ids is not None else None
        self.mode = mode
        self.mmr_threshold = mmr_threshold

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """Embed ``query`` and return the nearest nodes, best first."""
        if not isinstance(query, str):
            raise ConfigError(f"query must be a string, got {type(query).__name__}")
        embedder = self.index.embedder
        with _stage(trace, "embed query", model=self.index.embed_model_name) as detail:
            # The first query of a process pays for loading the model: say so in the trace.
            detail["loaded model"] = not getattr(embedder, "loaded", True)
            vector = embed_query(embedder, query)
            detail["dim"] = int(vector.shape[0])
        return self.retrieve_by_vector(vector, trace=trace)

    def retrieve_by_vector(
        self, vector: np.ndarray, *, trace: Trace | None = None
    ) -> list[ScoredNode]:
        """Search with a precomputed query vector (benchmarks, hybrid retrievers)."""
        with _stage(
            trace, "retrieve", top_k=self.similarity_top_k, mode=self.mode, nodes=len(self.index)
        ) as detail:
            results = self.index.search(
                vector,
                top_k=self.similarity_top_k,
                filters=self.filters,
                doc_ids=self.doc_ids,
                mode=self.mode,
                mmr_threshold=self.mmr_threshold,
            )
            detail["hits"] = [
                {"node_id": r.node.node_id, "score": r.score, "file_name": r.file_name}
                for r in results
            ]
        return results
