"""``llama_index.core.query_engine``: ``RetrieverQueryEngine``."""

from ..query_engines import RetrieverQueryEngine
from ..transforms import TransformQueryEngine

__all__ = ["RetrieverQueryEngine", "TransformQueryEngine"]
