"""``llama_index.core.embeddings``: the embedder protocol (``BaseEmbedding``)."""

from ...embeddings.base import Embedder

BaseEmbedding = Embedder

__all__ = ["BaseEmbedding"]
