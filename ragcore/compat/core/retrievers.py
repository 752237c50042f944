"""``llama_index.core.retrievers``: ``VectorIndexRetriever``, ``AutoMergingRetriever``."""

from ..query_engines import AutoMergingRetriever, VectorIndexRetriever

__all__ = ["AutoMergingRetriever", "VectorIndexRetriever"]
