"""``llama_index.core.postprocessor``: ragcore's node postprocessors (``postprocess_nodes``)."""

from ...postprocess import (
    KeywordNodePostprocessor,
    LongContextReorder,
    MetadataReplacementPostProcessor,
    PrevNextNodePostprocessor,
    SimilarityPostprocessor,
)

__all__ = ["KeywordNodePostprocessor", "LongContextReorder", "MetadataReplacementPostProcessor",
           "PrevNextNodePostprocessor", "SimilarityPostprocessor"]
