"""``llama_index.core.storage.docstore``: ``SimpleDocumentStore`` is ragcore's ``NodeStore``."""

from ....retrieval.auto_merging import NodeStore

SimpleDocumentStore = NodeStore

__all__ = ["SimpleDocumentStore"]
