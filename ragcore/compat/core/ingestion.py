"""``llama_index.core.ingestion``: ragcore's ``IngestionPipeline`` (``run(documents=...)``
returns the nodes, iterable as LlamaIndex's list)."""

from ...ingestion import IngestionCache, IngestionPipeline

__all__ = ["IngestionCache", "IngestionPipeline"]
