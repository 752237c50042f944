"""``llama_index.core.indices.query.query_transform``: ``HyDEQueryTransform``."""

from ....transforms import HyDEQueryTransform

__all__ = ["HyDEQueryTransform"]
