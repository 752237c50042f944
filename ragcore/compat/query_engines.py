"""LlamaIndex's low-level query API: ``RetrieverQueryEngine``, ``VectorIndexRetriever`` and
``get_response_synthesizer``, each a translation to ragcore's ``QueryEngine``, the index's
retriever and ``Synthesizer``. An LLM left out is ``Settings.llm``, then ``resolve_llm()``.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..retrieval.auto_merging import AutoMergingRetriever as _AutoMerging
from ..errors import ConfigError
from ..engines.from_index import default_llm
from ..query import QueryEngine
from ..synthesis import ResponseMode, Synthesizer
from .engines import _prompts, _TEMPLATES
from .refusals import refuse
from .settings import Settings

_HINTS = {
    "callback_manager": "pass trace=Trace() to query()",
    "use_async": "tree_summarize asks the LLM in parallel already: max_concurrency=",
    "output_cls": "ragcore answers with text",
    "verbose": "pass trace=Trace() to query() and read what it recorded",
    "structured_answer_filtering": "ragcore has no structured answer filtering",
}


def get_response_synthesizer(
    llm: Any = None, response_mode: ResponseMode | str = ResponseMode.COMPACT,
    streaming: bool = False, **options: Any,
) -> Synthesizer:
    """A synthesizer (its responses stream when iterated, whatever ``streaming`` says)."""
    templates = {k: options.pop(k) for k in list(options) if k in _TEMPLATES}
    max_concurrency = options.pop("max_concurrency", 4)
    refuse("get_response_synthesizer", options, _HINTS)
    prompts = _prompts(templates)
    extra = {} if prompts is None else {"prompts": prompts}
    return Synthesizer(default_llm(llm or Settings.llm, "a response synthesizer"),
                       response_mode=response_mode, max_concurrency=max_concurrency, **extra)


class RetrieverQueryEngine(QueryEngine):
    """ragcore's ``QueryEngine`` made as in LlamaIndex: a retriever, an optional
    synthesizer (else the default LLM in compact mode) and ``node_postprocessors``."""

    def __init__(
        self,
        retriever: Any,
        response_synthesizer: Synthesizer | None = None,
        node_postprocessors: Sequence[Any] | None = None,
        **unsupported: Any,
    ) -> None:
        refuse("RetrieverQueryEngine", unsupported, _HINTS)
        synthesizer = response_synthesizer or get_response_synthesizer()
        super().__init__(retriever, synthesizer, postprocessors=node_postprocessors or ())

    @classmethod
    def from_args(cls, retriever: Any, llm: Any = None, node_postprocessors: Any = None,
                  **options: Any) -> RetrieverQueryEngine:
        """LlamaIndex's shortcut: the synthesizer's options given here."""
        return cls(retriever, get_response_synthesizer(llm, **options), node_postprocessors)


def VectorIndexRetriever(  # noqa: N802 (LlamaIndex's class name)
    index: Any, similarity_top_k: int = 2, filters: Any = None, doc_ids: Any = None,
    **unsupported: Any,
) -> Any:
    """The index's similarity retriever (LlamaIndex's default top-k, 2)."""
    mode = unsupported.pop("vector_store_query_mode", "default")
    refuse("VectorIndexRetriever", unsupported, _HINTS)
    if str(getattr(mode, "value", mode)) not in ("default", "mmr"):
        raise ConfigError(f"vector_store_query_mode={mode!r}: use 'default' or 'mmr', or "
                          "index.as_retriever(mode='hybrid' | 'keyword')")
    return index.as_retriever(similarity_top_k=similarity_top_k, filters=filters,
                              doc_ids=doc_ids, mode="mmr" if str(getattr(mode, "value", mode))
                              == "mmr" else "similarity")


def AutoMergingRetriever(  # noqa: N802 (LlamaIndex's class name)
    vector_retriever: Any, storage_context: Any, simple_ratio_thresh: float = 0.5,
    verbose: bool = False,
) -> _AutoMerging:
    """``ragcore.retrieval.auto_merging.AutoMergingRetriever`` over the parents in
    ``storage_context.docstore`` (``verbose``: its trace stage "auto-merge" tells the merges)."""
    if storage_context.docstore is None:
        raise ConfigError("the storage context has no docstore: StorageContext.from_defaults() "
                          "and storage_context.docstore.add_documents(nodes)")
    return _AutoMerging(vector_retriever, storage_context.docstore,
                        simple_ratio_thresh=simple_ratio_thresh)
