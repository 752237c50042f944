"""LlamaIndex's ``CitationQueryEngine.from_args(index, citation_chunk_size=, ...)`` over
``ragcore.engines.citation``.

``from_args`` takes LlamaIndex's keywords: ``llm`` (else ``Settings.llm``, else
``resolve_llm()``), ``citation_chunk_size``/``citation_chunk_overlap``, ``retriever`` (else
``index.as_retriever(**kwargs)``, so ``similarity_top_k=`` goes there), ``node_postprocessors``,
``response_mode``, ``citation_qa_template``/``citation_refine_template`` (text or
``PromptTemplate``; LlamaIndex's ``{context_str}``/``{query_str}`` read as ragcore's fields) and
``streaming`` (every response streams when iterated, so it changes nothing).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

from ..engines.citation import DEFAULT_CITATION_CHUNK_OVERLAP, DEFAULT_CITATION_CHUNK_SIZE
from ..engines.citation import CitationQueryEngine as _CitationQueryEngine
from ..errors import ConfigError
from ..engines.from_index import default_llm, llm_with_index_embedder
from ..prompts import PromptTemplate
from ..prompts.answer import CITATION_PROMPTS
from ..synthesis import ResponseMode
from .refusals import refuse
from .settings import Settings

_RETRIEVER_OPTIONS = ("similarity_top_k", "filters", "doc_ids", "retrieval_mode")
_HINTS = {
    "response_synthesizer": "pass llm=, response_mode= and the citation templates instead",
    "text_splitter": "citation chunks are split by SentenceSplitter(citation_chunk_size)",
    "use_async": "tree_summarize already asks the LLM in parallel",
    "metadata_mode": "the sources carry the passages' metadata as the other engines' do",
    "callback_manager": "pass trace=Trace() to query()",
}


class CitationQueryEngine(_CitationQueryEngine):
    """ragcore's citation engine, made with LlamaIndex's ``from_args``."""

    @classmethod
    def from_args(
        cls,
        index: Any,
        llm: Any = None,
        citation_chunk_size: int = DEFAULT_CITATION_CHUNK_SIZE,
        citation_chunk_overlap: int = DEFAULT_CITATION_CHUNK_OVERLAP,
        retriever: Any = None,
        node_postprocessors: Sequence[Any] | None = None,
        response_mode: ResponseMode | str = ResponseMode.COMPACT,
        citation_qa_template: Any = None,
        citation_refine_template: Any = None,
        streaming: bool = False,
        **options: Any,
    ) -> CitationQueryEngine:
        """A citation engine over ``index`` (``similarity_top_k=`` and the other retriever
        options go to ``index.as_retriever``)."""
        wanted = {k: options.pop(k) for k in list(options) if k in _RETRIEVER_OPTIONS}
        refuse("CitationQueryEngine.from_args", options, _HINTS)
        if not isinstance(streaming, bool):
            raise ConfigError(f"streaming must be True or False, got {streaming!r}")
        mode = wanted.pop("retrieval_mode", "hybrid")
        if retriever is None:
            retriever = index.as_retriever(mode=mode, **wanted)
        model = default_llm(llm or Settings.llm, "CitationQueryEngine")
        return cls(
            retriever, llm_with_index_embedder(model, index, mode),
            citation_chunk_size=citation_chunk_size,
            citation_chunk_overlap=citation_chunk_overlap,
            response_mode=response_mode, postprocessors=node_postprocessors or (),
            prompts=_prompts(citation_qa_template, citation_refine_template),
        )


def _prompts(qa: Any, refine: Any) -> Any:
    chosen = {role: _template(template, role) for role, template in
              (("qa", qa), ("refine", refine)) if template is not None}
    return dataclasses.replace(CITATION_PROMPTS, **chosen) if chosen else CITATION_PROMPTS


def _template(template: Any, role: str) -> PromptTemplate:
    if isinstance(template, str):
        return PromptTemplate.from_string(template, name=f"citation {role}")
    if isinstance(template, PromptTemplate):
        return template
    raise ConfigError(f"citation_{role}_template must be a PromptTemplate or text, got "
                      f"{template!r}")


__all__ = ["CitationQueryEngine"]
