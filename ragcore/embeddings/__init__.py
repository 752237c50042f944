"""Embedders: turn texts into normalized float32 vectors.

``base`` holds the protocol and the batching helpers, ``fake`` a deterministic test embedder,
``sentence_transformers`` and ``onnx`` run local models in-process (torch or onnxruntime loads on
first embed, never here), ``packaged`` picks the packaged model's variant (the offline default),
``ollama`` and ``openai`` the HTTP embedders, ``registry`` the backends by name (with their
settings and factories) for the workspace settings and the app. The backends are imported on
first use of their name (httpx alone costs ~0.1 s to import), so ``import ragcore.index`` stays
light.
"""

from __future__ import annotations

from ..lazy_exports import lazy_exports
from .base import Embedder, Progress, embed_query, embed_texts, normalize
from .fake import FakeEmbedder

# public name -> submodule defining it, imported on first access
_LAZY: dict[str, str] = {
    "SentenceTransformerEmbedder": ".sentence_transformers",
    "OnnxEmbedder": ".onnx.embedder",
    "default_embedder": ".packaged",
    "OllamaEmbedder": ".ollama",
    "OpenAIEmbedder": ".openai",
    "build_embedder": ".registry",
    "embedding_backends": ".registry",
    "register_embedding_backend": ".registry",
}

__all__ = [
    "Embedder",
    "FakeEmbedder",
    "OllamaEmbedder",
    "OnnxEmbedder",
    "OpenAIEmbedder",
    "Progress",
    "SentenceTransformerEmbedder",
    "build_embedder",
    "default_embedder",
    "embed_query",
    "embed_texts",
    "embedding_backends",
    "normalize",
    "register_embedding_backend",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals(), __all__)
