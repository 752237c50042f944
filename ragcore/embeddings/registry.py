"""The embedding backends by name: the one list the workspace settings and the app read.

Built in: ``packaged`` (the all-MiniLM-L6-v2 that ships with ragcore, in the variant
``packaged.default_embedder`` picks: ONNX float32 for new indexes), ``local`` (another
sentence-transformers model in a folder), ``ollama`` and ``openai`` (an embedding model on a
server). Each is a ``ragcore.backend.Backend`` whose factory takes its settings; factories
import their embedder module when called, so importing this module costs no httpx or torch.
Another backend is one module plus one ``register_embedding_backend`` call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr

from ..backend import Backend, NoSettings, ServerUrl, models_found, secret_value
from ..errors import ConfigError
from ..registry import Registry
from ..http.servers import (
    DEFAULT_OPENAI_URL,
    list_ollama_models,
    list_openai_models,
    ollama_url,
)
from .base import Embedder

embedding_backends: Registry[Backend[Embedder]] = Registry("embedding backend")


def register_embedding_backend(
    backend: Backend[Embedder], *, replace: bool = False
) -> Backend[Embedder]:
    """Offer ``backend`` under its name everywhere embedding backends are listed."""
    return embedding_backends.register(backend.name, backend, replace=replace)


def build_embedder(name: str, settings: Any = None) -> Embedder:
    """The embedder of backend ``name`` with ``settings`` (a dict or its settings model)."""
    backend = embedding_backends.get(name)
    values = backend.parse(settings)
    backend.check_complete(values)
    return backend.build(values)


# -- the built-in backends --------------------------------------------------------------------


class LocalModelSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    path: str = Field("", title="Model folder",
                      description="A folder holding a sentence-transformers model.")


class OllamaEmbeddingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    url: ServerUrl = Field(default_factory=ollama_url, title="Ollama address")
    model: str = Field("", title="Embedding model", description="For example nomic-embed-text.")


class OpenAIEmbeddingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    url: ServerUrl = Field(DEFAULT_OPENAI_URL, title="Server address (base URL)",
                           description="OpenAI's address, or your server's, usually ending in /v1.")
    model: str = Field("", title="Embedding model",
                       description="For example text-embedding-3-small.")
    api_key: SecretStr | None = Field(
        None, title="API key",
        description="Kept for this session only unless you save it. Empty: $OPENAI_API_KEY.")


def _build_packaged(settings: NoSettings) -> Embedder:
    from .packaged import default_embedder

    return default_embedder()


def _build_local(settings: LocalModelSettings) -> Embedder:
    from .sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(model_path=settings.path)


def _test_local(settings: LocalModelSettings) -> str:
    folder = Path(settings.path).expanduser()
    if not folder.is_dir():
        raise ConfigError(f"{str(folder)!r} is not a folder: give the folder of the model")
    if not (folder / "modules.json").exists() and not (folder / "config.json").exists():
        raise ConfigError(
            f"{folder} holds no modules.json or config.json: is it a sentence-transformers model "
            "folder (as saved by SentenceTransformer.save)?"
        )
    return f"Found a model in {folder}; it loads the first time it embeds."


def _build_ollama(settings: OllamaEmbeddingSettings) -> Embedder:
    from .ollama import OllamaEmbedder

    return OllamaEmbedder(model=settings.model, base_url=settings.url)


def _ollama_models(settings: OllamaEmbeddingSettings) -> list[str]:
    return list_ollama_models(settings.url)


def _test_ollama(settings: OllamaEmbeddingSettings) -> str:
    return models_found(settings.url, _ollama_models(settings),
                        hint="pull one with `ollama pull nomic-embed-text`")


def _build_openai(settings: OpenAIEmbeddingSettings) -> Embedder:
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(model=settings.model, base_url=settings.url,
                          api_key=secret_value(settings.api_key))


def _openai_models(settings: OpenAIEmbeddingSettings) -> list[str]:
    return list_openai_models(settings.url, secret_value(settings.api_key))


def _test_openai(settings: OpenAIEmbeddingSettings) -> str:
    return models_found(settings.url, _openai_models(settings))


register_embedding_backend(Backend(
    name="packaged", label="Packaged all-MiniLM-L6-v2",
    description="Ships with the app: works offline with nothing to set up (the default).",
    settings=NoSettings, build=_build_packaged,
))
register_embedding_backend(Backend(
    name="local", label="Local model folder",
    description="Another sentence-transformers model saved in a folder on this computer.",
    settings=LocalModelSettings, build=_build_local, required=("path",),
    test_connection=_test_local,
))
register_embedding_backend(Backend(
    name="ollama", label="Ollama",
    description="An embedding model served by Ollama (for example nomic-embed-text).",
    settings=OllamaEmbeddingSettings, build=_build_ollama, required=("model",),
    list_models=_ollama_models, test_connection=_test_ollama,
))
register_embedding_backend(Backend(
    name="openai", label="OpenAI-compatible server",
    description="An embedding model from OpenAI or a server speaking its API.",
    settings=OpenAIEmbeddingSettings, build=_build_openai, required=("model",),
    list_models=_openai_models, test_connection=_test_openai,
))
