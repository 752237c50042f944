"""The vector stores by name: what reopens the store an index manifest names.

An index manifest records its store as ``{"type": name, "settings": {...}}``, the ``StoreSpec``
the store's ``describe()`` returned when the index was persisted. ``VectorStoreIndex.load``
hands it to ``open_vector_store``, which calls the opener registered under that name with the
index folder and the settings. ``SimpleVectorStore`` is registered here; a store written
elsewhere (a plugin, a test suite) is one call away from loading like the built-in one::

    register_vector_store("MyStore", lambda folder, settings: MyStore.open(folder, **settings))

An opener gets the folder even when its rows live in a database, so both kinds open alike;
settings hold what ``describe()`` wrote (names, never secrets: read a password from the
environment inside the opener).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from ..errors import IndexFormatError
from ..registry import Registry
from .simple.ann import AnnSettings
from .base import StoreSpec, VectorStore
from .simple.store import SimpleVectorStore

StoreOpener = Callable[[Path, dict[str, Any]], VectorStore]

vector_stores: Registry[StoreOpener] = Registry("vector store")


def register_vector_store(name: str, opener: StoreOpener, *, replace: bool = False) -> StoreOpener:
    """Let ``VectorStoreIndex.load`` open index folders whose manifest names ``name``."""
    return vector_stores.register(name, opener, replace=replace)


def open_vector_store(spec: StoreSpec, folder: Path) -> VectorStore:
    """The store ``spec`` describes, opened by its registered opener for the index at ``folder``."""
    if spec.type not in vector_stores:
        known = ", ".join(vector_stores.names()) or "none"
        raise IndexFormatError(
            f"{folder / 'manifest.json'}: the vectors are in a {spec.type!r} store, which is not "
            f"registered (registered stores: {known}): import the package that provides it, or "
            f"call ragcore.stores.registry.register_vector_store({spec.type!r}, opener) "
            "before loading"
        )
    return vector_stores.get(spec.type)(Path(folder), dict(spec.settings))


def open_simple_store(folder: Path, settings: dict[str, Any]) -> SimpleVectorStore:
    """The ``SimpleVectorStore`` whose files are in ``folder``, checked against the manifest."""
    ann = settings.get("ann", AnnSettings().to_json())  # manifests before issue 20: default
    store = SimpleVectorStore.load(folder, ann=None if ann is None else AnnSettings.from_json(ann))
    metric = settings.get("metric", store.metric)
    if metric != store.metric:
        raise IndexFormatError(
            f"{folder / 'store.json'}: holds {store.metric!r} vectors but the manifest says "
            f"{metric!r}; the index is damaged: rebuild it"
        )
    return store


register_vector_store("SimpleVectorStore", open_simple_store)


def _open_chroma(folder: Path, settings: dict[str, Any]) -> VectorStore:
    from .chroma import open_chroma_store

    return open_chroma_store(folder, settings)


def _open_pgvector(folder: Path, settings: dict[str, Any]) -> VectorStore:
    from .postgres.pgvector import open_pg_store

    return open_pg_store(folder, settings)


# Registered by name without importing chromadb or psycopg: they load when an index names them.
register_vector_store("ChromaVectorStore", _open_chroma)
register_vector_store("PGVectorStore", _open_pgvector)
