"""LlamaIndex's ``RouterQueryEngine``, ``LLMSingleSelector``, ``EmbeddingSingleSelector`` and
``SubQuestionQueryEngine`` constructors over ``ragcore.engines.router`` and
``ragcore.engines.sub_question``.
An LLM or embedder left out is ``Settings``' (then ragcore's default)."""

from __future__ import annotations

from typing import Any, Sequence

from ..engines.from_index import default_llm
from ..engines.router import EmbeddingSingleSelector as _EmbeddingSelector
from ..engines.router import LLMSingleSelector as _LLMSelector
from ..engines.router import RouterQueryEngine as _Router
from ..engines.sub_question import SubQuestionQueryEngine as _SubQuestion
from .refusals import refuse
from .settings import Settings

_HINTS = {
    "summarizer": "the router answers with the one engine it picks (single selection)",
    "question_gen": "ragcore's sub-question prompt is fixed (ragcore.engines.sub_question)",
    "response_synthesizer": "pass response_mode= instead",
    "prompt_template_str": "ragcore's selection prompt is fixed (ragcore.engines.router)",
}


class LLMSingleSelector:
    """``LLMSingleSelector.from_defaults(llm=None)``."""

    @classmethod
    def from_defaults(cls, llm: Any = None, **unsupported: Any) -> _LLMSelector:
        refuse("LLMSingleSelector.from_defaults", unsupported, _HINTS)
        return _LLMSelector(llm=default_llm(llm or Settings.llm, "LLMSingleSelector"))


class EmbeddingSingleSelector:
    """``EmbeddingSingleSelector.from_defaults(embed_model=None)``."""

    @classmethod
    def from_defaults(cls, embed_model: Any = None) -> _EmbeddingSelector:
        from ..embeddings import default_embedder

        return _EmbeddingSelector(embedder=embed_model or Settings.embed_model
                                  or default_embedder())


def RouterQueryEngine(  # noqa: N802 (LlamaIndex's class name)
    selector: Any, query_engine_tools: Sequence[Any], verbose: bool = False, **unsupported: Any,
) -> _Router:
    """``ragcore.engines.router.RouterQueryEngine``; the route is in ``trace.notes["route"]``."""
    refuse("RouterQueryEngine", unsupported, _HINTS)
    return _Router(query_engine_tools, selector=selector)


class SubQuestionQueryEngine:
    """``SubQuestionQueryEngine.from_defaults(query_engine_tools=..., llm=None)``."""

    @classmethod
    def from_defaults(cls, query_engine_tools: Sequence[Any], llm: Any = None,
                      use_async: bool = True, verbose: bool = False,
                      **options: Any) -> _SubQuestion:
        mode = options.pop("response_mode", "compact")
        refuse("SubQuestionQueryEngine.from_defaults", options, _HINTS)
        return _SubQuestion(query_engine_tools, response_mode=mode,
                            llm=default_llm(llm or Settings.llm, "SubQuestionQueryEngine"))
