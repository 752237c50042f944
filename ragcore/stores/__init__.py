"""Vector stores: the VectorStore protocol, the numpy SimpleVectorStore, metadata filters."""

from .base import QUERY_MODES, QueryMode, VectorStore
from .filters import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    as_filters,
    filter_mask,
    matches,
)
from .mmr import mmr_select
from .simple import METRICS, SimpleVectorStore, top_k_indices

__all__ = [
    "METRICS",
    "QUERY_MODES",
    "FilterCondition",
    "FilterOperator",
    "MetadataFilter",
    "MetadataFilters",
    "QueryMode",
    "SimpleVectorStore",
    "VectorStore",
    "as_filters",
    "filter_mask",
    "matches",
    "mmr_select",
    "top_k_indices",
]
