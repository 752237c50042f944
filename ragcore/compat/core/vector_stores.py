"""``llama_index.core.vector_stores``: ragcore's metadata filters."""

from ...stores.filters import (
    ExactMatchFilter,
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

__all__ = ["ExactMatchFilter", "FilterCondition", "FilterOperator", "MetadataFilter",
           "MetadataFilters"]
