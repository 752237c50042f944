"""Vector stores: the VectorStore protocol (``base``), the embedded numpy SimpleVectorStore
(``simple/``, with its approximate index and that index's measured recall), Postgres with
pgvector (``postgres/``), Chroma (``chroma``), metadata filters, and the registry that reopens
the store an index manifest names (``registry``)."""

from .base import METRICS, StoreSpec, VectorStore
from .filters import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    as_filters,
    filter_mask,
    matches,
)
from .registry import open_vector_store, register_vector_store, vector_stores
from .simple.store import SimpleVectorStore, top_k_indices

__all__ = [
    "METRICS",
    "FilterCondition",
    "FilterOperator",
    "MetadataFilter",
    "MetadataFilters",
    "SimpleVectorStore",
    "StoreSpec",
    "VectorStore",
    "as_filters",
    "filter_mask",
    "matches",
    "open_vector_store",
    "register_vector_store",
    "top_k_indices",
    "vector_stores",
]
