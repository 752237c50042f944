"""Retrieval: the retrievers and what combines and reorders them.

``retrievers`` holds the vector, keyword and hybrid retrievers; around them the seeds' advanced
retrievers (``auto_merging``, ``sentence_window``, ``query_fusion``, ``hyde``), rerankers
(``rerank``), the sentence cut for a model that reads little (``optimizer``), and what a
question of one form reads beyond it: a document's card (``cards``), the sentence spelling out
an asked acronym (``acronyms``). The engines
that pick or split a question over several sources, and the one that builds a retriever by
name, live a floor up in ``ragcore.engines``.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports

_EXPORTS = {
    "Retriever": ".retrievers",
    "VectorRetriever": ".retrievers",
    "KeywordRetriever": ".retrievers",
    "HybridRetriever": ".retrievers",
    "make_retriever": ".retrievers",
    "AutoMergingRetriever": ".auto_merging",
    "NodeStore": ".auto_merging",
    "SentenceWindowNodeParser": ".sentence_window",
    "QueryFusionRetriever": ".query_fusion",
    "HyDERetriever": ".hyde",
    "LLMRerank": ".rerank",
    "SentenceTransformerRerank": ".rerank",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
