"""The engines every index offers: a retriever, a query engine, a chat engine (LlamaIndex's
``as_retriever``, ``as_query_engine``, ``as_chat_engine``), for an index in a folder
(``VectorStoreIndex``) and one in Postgres (``database.PgIndex``) alike: both are what the
retrievers search (``retrieval.retrievers.SearchableIndex``), so the engines are built the same.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from ..retrieval.retrievers import Retriever, RetrievalMode, make_retriever
from ..stores import MetadataFilters

if TYPE_CHECKING:
    from ..chat import ChatEngine, ChatMode
    from ..llms.base import LLM
    from ..postprocess import NodePostprocessor
    from ..query import QueryEngine
    from ..synthesis import ResponseMode
    from ..tools import Tool


class EngineMethods:
    """``as_retriever``, ``as_query_engine`` and ``as_chat_engine`` over ``self``."""

    def as_retriever(
        self,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        mode: RetrievalMode = "hybrid",
        mmr_threshold: float = 0.5,
        mmr_fetch_k: int | None = None,
    ) -> Retriever:
        """A retriever: "hybrid" (the default: vector and BM25 fused), "similarity" or "mmr"
        (vector store), "keyword" (BM25); MMR picks among ``mmr_fetch_k`` candidates (default
        ``max(20, 4 * top_k)``)."""
        return make_retriever(
            self, mode=mode, similarity_top_k=similarity_top_k, filters=filters, doc_ids=doc_ids,
            mmr_threshold=mmr_threshold, mmr_fetch_k=mmr_fetch_k,
        )

    def as_query_engine(
        self,
        *,
        llm: LLM | None = None,
        response_mode: ResponseMode | str = "compact",
        similarity_top_k: int = 4,
        node_postprocessors: Sequence[NodePostprocessor] = (),
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        max_concurrency: int = 4,
        retrieval_mode: RetrievalMode = "hybrid",
    ) -> QueryEngine:
        """Retrieve -> postprocess -> synthesize over this index (``engines.from_index``)."""
        # engines import chat and agents: lazily
        from ..engines.from_index import query_engine_from_index

        return query_engine_from_index(
            self, llm=llm, response_mode=response_mode, similarity_top_k=similarity_top_k,
            node_postprocessors=node_postprocessors, filters=filters, doc_ids=doc_ids,
            max_concurrency=max_concurrency, retrieval_mode=retrieval_mode,
        )

    def as_chat_engine(
        self,
        *,
        chat_mode: ChatMode | str = "best",
        llm: LLM | None = None,
        similarity_top_k: int = 4,
        response_mode: ResponseMode | str = "compact",
        node_postprocessors: Sequence[NodePostprocessor] = (),
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
        retrieval_mode: RetrievalMode = "hybrid",
    ) -> ChatEngine:
        """A chat engine (or agent) of ``chat_mode`` over this index (``engines.from_index``)."""
        from ..engines.from_index import chat_engine_from_index

        return chat_engine_from_index(
            self, chat_mode=chat_mode, llm=llm, similarity_top_k=similarity_top_k,
            response_mode=response_mode, node_postprocessors=node_postprocessors,
            system_prompt=system_prompt, tools=tools, retrieval_mode=retrieval_mode,
        )
