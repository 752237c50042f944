"""``llama_index.vector_stores.chroma.ChromaVectorStore(chroma_collection=...)`` over ragcore's
Chroma store.

LlamaIndex takes a collection the caller opened; ragcore's ``ChromaVectorStore`` opens its
collection itself (at a folder or a server) and records where, so an index can be reopened from
its manifest. The adapter reads where the given collection lives (its client's folder, or its
server's address) and the distance it was created with, and opens the same collection through
ragcore's store.
"""

from __future__ import annotations

from typing import Any

from ...errors import ConfigError
from ...stores.chroma import ChromaVectorStore as _Chroma

_METRICS = {"cosine": "cosine", "ip": "dot", "l2": "euclidean"}


def ChromaVectorStore(chroma_collection: Any = None, **unsupported: Any) -> _Chroma:  # noqa: N802
    """ragcore's Chroma store over the collection ``chroma_collection``."""
    if unsupported or chroma_collection is None:
        raise ConfigError("ChromaVectorStore takes chroma_collection= here (or use ragcore's "
                          "ChromaVectorStore(path=FOLDER or url=URL, collection=NAME))")
    settings = chroma_collection._client.get_settings()  # chromadb keeps the client's settings
    space = (chroma_collection.configuration or {}).get("hnsw", {}).get("space", "l2")
    metric = _METRICS.get(space)
    if metric is None:
        raise ConfigError(f"Chroma collection {chroma_collection.name!r} uses distance "
                          f"{space!r}; ragcore reads cosine, ip or l2 collections")
    if settings.persist_directory and settings.is_persistent:
        return _Chroma(collection=chroma_collection.name, path=settings.persist_directory,
                       metric=metric)
    host, port = settings.chroma_server_host, settings.chroma_server_http_port
    if not host:
        raise ConfigError("an in-memory Chroma client cannot back an index: use "
                          "chromadb.PersistentClient(path=...) or a Chroma server")
    scheme = "https" if settings.chroma_server_ssl_enabled else "http"
    return _Chroma(collection=chroma_collection.name, url=f"{scheme}://{host}:{port}",
                   metric=metric)
