"""``llama_index.core.postprocessor``: ragcore's node postprocessors (``postprocess_nodes``),
``LLMRerank`` with its LLM left out meaning ``Settings.llm``, then ``resolve_llm()``, and
``SentenceTransformerRerank(model=..., top_n=...)`` (a cross-encoder folder on disk)."""

from __future__ import annotations

from typing import Any

from ...engines.from_index import default_llm
from ...postprocess import (
    KeywordNodePostprocessor,
    LongContextReorder,
    MetadataReplacementPostProcessor,
    PrevNextNodePostprocessor,
    SimilarityPostprocessor,
)
from ...retrieval.rerank import LLMRerank as _LLMRerank
from ...retrieval.rerank import SentenceTransformerRerank as _SentenceTransformerRerank
from ..settings import Settings


def LLMRerank(  # noqa: N802 (LlamaIndex's class name)
    llm: Any = None, choice_batch_size: int = 10, top_n: int = 10
) -> _LLMRerank:
    """``ragcore.retrieval.rerank.LLMRerank`` with LlamaIndex's defaults."""
    return _LLMRerank(llm=default_llm(llm or Settings.llm, "LLMRerank"),
                      choice_batch_size=choice_batch_size, top_n=top_n)


def SentenceTransformerRerank(  # noqa: N802 (LlamaIndex's class name)
    model: str = "cross-encoder/stsb-distilroberta-base", top_n: int = 2,
    keep_retrieval_score: bool = False,
) -> _SentenceTransformerRerank:
    """``ragcore.retrieval.rerank.SentenceTransformerRerank`` with LlamaIndex's defaults (the
    default model loads only if it is already in the Hugging Face cache: nothing is downloaded)."""
    return _SentenceTransformerRerank(model=model, top_n=top_n,
                                      keep_retrieval_score=keep_retrieval_score)


__all__ = ["KeywordNodePostprocessor", "LLMRerank", "LongContextReorder",
           "MetadataReplacementPostProcessor", "PrevNextNodePostprocessor",
           "SentenceTransformerRerank", "SimilarityPostprocessor"]
