"""LlamaIndex's ``SummaryIndex``: ``from_documents(docs)``, ``as_retriever()``,
``as_query_engine(response_mode=...)`` over ragcore's ``SummaryIndex``.

It *is* ragcore's ``SummaryIndex`` (every node, read in full for each question). Documents are
split by ``transformations`` (one splitter), else ``Settings``' splitter, else ragcore's
``SentenceSplitter``; nothing is embedded. The retriever returns every node in document order;
the query engine is ``RetrieverQueryEngine.from_args`` over it, as LlamaIndex builds it (so its
default response mode is LlamaIndex's ``compact``, not ragcore's ``tree_summarize``).
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..summaries import SummaryIndex as _SummaryIndex
from ..chunking import SentenceSplitter
from ..errors import ConfigError
from ..trace import Trace
from ..types import Document, ScoredNode
from .query_engines import RetrieverQueryEngine
from .refusals import refuse
from .settings import Settings

_HINTS = {
    "storage_context": "a ragcore SummaryIndex lives in memory; persist a VectorStoreIndex",
    "retriever_mode": "the summary retriever returns every node; for the nearest ones use "
                      "VectorStoreIndex.as_retriever(similarity_top_k=)",
    "show_progress": "splitting needs no progress bar",
}


class SummaryIndexRetriever:
    """Every node of a summary index, in document order (score None: nothing was ranked)."""

    def __init__(self, index: _SummaryIndex) -> None:
        self.index = index

    def retrieve(self, question: Any = "", *, trace: Trace | None = None) -> list[ScoredNode]:
        """All the nodes, whatever the question."""
        nodes = [ScoredNode(node) for node in self.index.nodes]
        if trace is not None:
            with trace.stage("retrieve", mode="all nodes", nodes=len(nodes)):
                pass
        return nodes


class SummaryIndex(_SummaryIndex):
    """ragcore's ``SummaryIndex`` built and queried with LlamaIndex's calls."""

    @classmethod
    def from_documents(
        cls, documents: Iterable[Document], *, transformations: Sequence[Any] | None = None,
        **unsupported: Any,
    ) -> SummaryIndex:
        """Split ``documents`` into the nodes every question will read."""
        refuse("SummaryIndex.from_documents", {
            k: v for k, v in unsupported.items() if k != "show_progress"}, _HINTS)
        return cls(_splitter(transformations).get_nodes_from_documents(list(documents)))

    def as_retriever(self, **unsupported: Any) -> SummaryIndexRetriever:
        """A retriever giving every node."""
        refuse("SummaryIndex.as_retriever", unsupported, _HINTS)
        return SummaryIndexRetriever(self)

    def as_query_engine(self, llm: Any = None, **options: Any) -> RetrieverQueryEngine:
        """Every node to the synthesizer; ``response_mode``, templates, ``streaming`` as in
        ``get_response_synthesizer`` (``llm`` else ``Settings.llm``, else ``resolve_llm()``)."""
        return RetrieverQueryEngine.from_args(self.as_retriever(), llm=llm, **options)


def _splitter(transformations: Sequence[Any] | None) -> Any:
    if transformations is None:
        return Settings.splitter() or SentenceSplitter()
    steps = list(transformations)
    if len(steps) != 1 or not callable(getattr(steps[0], "get_nodes_from_documents", None)):
        raise ConfigError("SummaryIndex.from_documents(transformations=) takes one splitter, "
                          f"e.g. [SentenceSplitter(chunk_size=512)]; got {steps!r}")
    return steps[0]


__all__ = ["SummaryIndex", "SummaryIndexRetriever"]
