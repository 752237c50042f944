"""Settings to live objects: the one visible place where the embedder and the LLM are chosen.

The CLI and the app call these at the edge; nothing deeper builds a default model. Embedders are
cached per process by their settings, so a model loads once however many indexes use it.
"""

from __future__ import annotations

import threading

from ..embeddings.base import Embedder
from ..llms.base import LLM
from .settings import Settings

EMBEDDING_FIELDS = (
    "embedding_kind",
    "embedding_path",
    "embedding_server",
    "embedding_url",
    "embedding_model",
)
_cache: dict[tuple, Embedder] = {}
_lock = threading.Lock()


def embedding_choice(settings: Settings) -> dict[str, str]:
    """The settings fields that decide the embedding model (stored with each index)."""
    return {name: getattr(settings, name) for name in EMBEDDING_FIELDS}


def embedder_from_settings(settings: Settings) -> Embedder:
    """The embedder the settings choose (packaged MiniLM, a local model, or a server's)."""
    key = tuple(embedding_choice(settings).values())
    with _lock:
        if key not in _cache:
            _cache[key] = _build_embedder(settings)
        return _cache[key]


def _build_embedder(settings: Settings) -> Embedder:
    settings.check_complete()
    if settings.embedding_kind == "packaged":
        from ..embeddings import default_embedder

        return default_embedder()
    if settings.embedding_kind == "local":
        from ..embeddings import SentenceTransformerEmbedder

        return SentenceTransformerEmbedder(model_path=settings.embedding_path)
    if settings.embedding_server == "ollama":
        from ..embeddings.ollama import OllamaEmbedder

        return OllamaEmbedder(model=settings.embedding_model, base_url=settings.embedding_url)
    from ..embeddings.openai import OpenAIEmbedder

    return OpenAIEmbedder(model=settings.embedding_model, base_url=settings.embedding_url,
                          api_key=settings.api_key())


def llm_from_settings(settings: Settings) -> LLM:
    """The answering backend the settings choose, with their temperature and context window.

    'auto' and 'extractive' go through ``resolve_llm`` (which detects a local Ollama).
    """
    settings.check_complete()
    window = {} if settings.context_window is None else {"context_window": settings.context_window}
    if settings.llm_backend == "ollama":
        from ..llms.ollama import OllamaLLM

        num_ctx = {} if settings.context_window is None else {"num_ctx": settings.context_window}
        return OllamaLLM(model=settings.ollama_model, base_url=settings.ollama_url,
                         temperature=settings.temperature, **num_ctx, **window)
    if settings.llm_backend == "openai":
        from ..llms.openai import OpenAILLM

        return OpenAILLM(model=settings.openai_model, base_url=settings.openai_base_url,
                         api_key=settings.api_key(), temperature=settings.temperature, **window)
    from ..llms.resolve import resolve_llm

    return resolve_llm(settings.llm_spec())
