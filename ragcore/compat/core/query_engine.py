"""``llama_index.core.query_engine``: the query engines ragcore has under LlamaIndex's names."""

from ..citation import CitationQueryEngine
from ..query_engines import RetrieverQueryEngine
from ..routing import RouterQueryEngine, SubQuestionQueryEngine
from ..transforms import TransformQueryEngine

__all__ = ["CitationQueryEngine", "RetrieverQueryEngine", "RouterQueryEngine",
           "SubQuestionQueryEngine", "TransformQueryEngine"]
