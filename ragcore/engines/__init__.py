"""Engines built by name: every query engine, chat engine and agent a caller asks for by a word.

    from_index.py    an index's query engine and the chat engine (or agent) of each chat mode
                     (``VectorStoreIndex.as_query_engine`` / ``as_chat_engine``)
    by_name.py       the advanced retrievers by name (standard, auto_merging, sentence_window,
                     query_fusion, hyde, llm_rerank, cross_encoder, router, sub_question)
    router.py        RouterQueryEngine: a selector picks one engine of several to answer
    sub_question.py  SubQuestionQueryEngine: one question per source, the answers combined
    citation.py      CitationQueryEngine: numbered sentence-sized sources, cited inline

The wing sits under ``index`` (which builds its engines here, lazily) and over ``agent``,
``chat``, ``query`` and ``retrieval``: the stages below never import it, so the one place that
chooses an engine by name is this one.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

# Imported on first use: ``index`` builds its engines from ``from_index`` without the others.
_EXPORTS: dict[str, str] = {
    "answer_check": ".from_index",
    "chat_engine_from_index": ".from_index",
    "index_words": ".from_index",
    "llm_with_index_embedder": ".from_index",
    "reading_pool": ".from_index",
    "reading_postprocessors": ".from_index",
    "CHOICES": ".by_name",
    "RetrieverResult": ".by_name",
    "build_engine": ".by_name",
    "build_retriever": ".by_name",
    "iter_compare_retrievers": ".by_name",
    "unavailable_reason": ".by_name",
    "RouterQueryEngine": ".router",
    "SubQuestionQueryEngine": ".sub_question",
    "CitationQueryEngine": ".citation",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
