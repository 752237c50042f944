"""``llama_index.core.postprocessor``: ragcore's node postprocessors (``postprocess_nodes``),
and ``LLMRerank`` with its LLM left out meaning ``Settings.llm``, then ``resolve_llm()``."""

from __future__ import annotations

from typing import Any

from ...index.engines import default_llm
from ...postprocess import (
    KeywordNodePostprocessor,
    LongContextReorder,
    MetadataReplacementPostProcessor,
    PrevNextNodePostprocessor,
    SimilarityPostprocessor,
)
from ...rerank import LLMRerank as _LLMRerank
from ..settings import Settings


def LLMRerank(  # noqa: N802 (LlamaIndex's class name)
    llm: Any = None, choice_batch_size: int = 10, top_n: int = 10
) -> _LLMRerank:
    """``ragcore.rerank.LLMRerank`` with LlamaIndex's defaults."""
    return _LLMRerank(llm=default_llm(llm or Settings.llm, "LLMRerank"),
                      choice_batch_size=choice_batch_size, top_n=top_n)


__all__ = ["KeywordNodePostprocessor", "LLMRerank", "LongContextReorder",
           "MetadataReplacementPostProcessor", "PrevNextNodePostprocessor",
           "SimilarityPostprocessor"]
