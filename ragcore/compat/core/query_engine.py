"""``llama_index.core.query_engine``: ``RetrieverQueryEngine``."""

from ..query_engines import RetrieverQueryEngine

__all__ = ["RetrieverQueryEngine"]
