"""``llama_index.core.retrievers``: ``VectorIndexRetriever``, ``AutoMergingRetriever``,
``QueryFusionRetriever``."""

from ..query_engines import AutoMergingRetriever, VectorIndexRetriever
from ..transforms import QueryFusionRetriever

__all__ = ["AutoMergingRetriever", "QueryFusionRetriever", "VectorIndexRetriever"]
