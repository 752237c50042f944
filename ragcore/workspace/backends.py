"""Settings to live objects: the one visible place where the embedder and the LLM are chosen.

The CLI and the app call these at the edge; nothing deeper builds a default model. Both read the
backend registries (``ragcore.llms.registry``, ``ragcore.embeddings.registry``), so a backend
registered there is built here unchanged. Embedders are cached per process by their settings,
so a model loads once however many indexes use it.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Mapping

from ..errors import WorkspaceError
from ..backend import public_values, secret_fields, secret_value
from ..embeddings.base import Embedder
from ..embeddings.registry import build_embedder
from ..llms.base import LLM
from ..llms.registry import LLMOptions, build_llm
from ..llms.resolve import resolve_llm, server_url
from .settings import AUTO, Settings
from ..present.format import counted

# The Settings fields that decide the embedding model (what ``embedding_choice`` stores).
EMBEDDING_FIELDS = ("embedding_backend", "embedders")
_cache: dict[str, Embedder] = {}
_lock = threading.Lock()


def embedding_choice(settings: Settings) -> dict[str, Any]:
    """What decides the embedding model, as stored with each index (secrets left out).

    ``{"embedding_backend": "ollama", "embedders": {"ollama": {"url": ..., "model": ...}}}``;
    ``Settings(**choice)`` reads it back, as it reads the flat choices older versions stored.
    """
    name = settings.embedding_backend
    return {"embedding_backend": name,
            "embedders": {name: public_values(settings.embedder_settings())}}


def same_embedding(stored: Mapping[str, Any], settings: Settings) -> bool:
    """Whether an index's stored choice (of any version) names the embedder ``settings`` choose."""
    return embedding_choice(Settings(**stored)) == embedding_choice(settings)


def embedder_from_settings(settings: Settings) -> Embedder:
    """The embedder the settings choose (packaged MiniLM, a local model, a server's ...)."""
    settings.check_complete(llm=False)
    name, values = settings.embedding_backend, settings.embedder_settings()
    key = _cache_key(name, values)
    with _lock:
        if key not in _cache:
            _cache[key] = build_embedder(name, values)
        return _cache[key]


def _cache_key(name: str, values: Any) -> str:
    data = public_values(values)
    data.update({f: secret_value(getattr(values, f)) for f in secret_fields(type(values))})
    return name + json.dumps(data, sort_keys=True)


def llm_from_settings(settings: Settings) -> LLM:
    """The answering backend the settings choose, with their temperature and context window.

    'auto' goes through ``resolve_llm`` ($RAGCORE_LLM, else a local Ollama, else extractive).
    The server address follows ``server_url``'s rule: $RAGCORE_LLM_BASE_URL before the settings.
    """
    settings.check_complete(embedder=False)
    if settings.llm_backend == AUTO:
        return resolve_llm(None, temperature=settings.temperature,
                           context_window=settings.context_window, saved_urls=saved_urls(settings))
    options = LLMOptions(temperature=settings.temperature, context_window=settings.context_window)
    values = settings.llm_settings()
    url = server_url(settings.llm_backend, saved=getattr(values, "url", None))
    if url is not None and url != values.url:
        values = type(values).model_validate({**dict(values), "url": url})
    return build_llm(settings.llm_backend, values, options)


def saved_urls(settings: Settings) -> dict[str, str]:
    """The server address the settings keep for each LLM backend that has one."""
    return {name: values.url for name, values in settings.llms.items()
            if isinstance(getattr(values, "url", None), str)}


def change_embedding(workspace: Any, name: str, settings: Any) -> None:
    """Give the empty index ``name`` the embedding model ``settings`` choose (the caller holds
    its write lock); refused once it holds documents, and for an index in the database, whose
    vector column has its model's size."""
    from .chats import now_iso
    from .stats import read_facts

    record = workspace.record(name)
    if same_embedding(record.embedding, settings):
        return
    if record.store == "database":
        raise WorkspaceError(f"index {name!r} lives in the database with the embedding model "
                             f"{record.embed_model!r}: create a new index for another model")
    documents = read_facts(workspace.index_path(name)).documents
    if documents:
        raise WorkspaceError(
            f"index {name!r} holds {counted(documents, 'document')} embedded with "
            f"{record.embed_model!r}; changing its embedding model needs re-indexing. "
            f"Create a new index with the new model and ingest the files again"
        )
    embedder = workspace.embedder_override or embedder_from_settings(settings)
    record.embedding = embedding_choice(settings)
    record.embed_model = embedder.model_name
    record.updated = now_iso()
    workspace.save_record(name, record)
