"""``llama_index.core.retrievers``: ``VectorIndexRetriever``."""

from ..query_engines import VectorIndexRetriever

__all__ = ["VectorIndexRetriever"]
