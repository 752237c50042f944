"""The VectorStore protocol: what every vector store can do, and nothing more.

A store keeps rows of (node id, vector, metadata, document id) and finds the rows nearest a query
vector. Node text and documents live in the index's docstore (``ragcore.index.docstore``), so a
store only needs ids, vectors, the metadata its filters read and each node's document id (to
delete a whole document). Ranking strategies such as MMR are retrieval steps built on ``query``
and ``get_vectors`` (``ragcore.search.mmr``); a store has no query modes.

A store also says how to reopen it, like haystack's ``to_dict``/``from_dict``: ``describe()``
returns a ``StoreSpec`` (the name the store is registered under in ``ragcore.stores.registry``
plus the settings its opener needs, never secrets), which the index writes into its manifest,
and ``VectorStoreIndex.load`` hands that back to the registered opener. Where the vectors live
decides what ``persist(folder)`` does: ``SimpleVectorStore`` writes its files into the index
folder; a store backed by a database server writes nothing there (its rows are already durable).
``ragcore.testing.vector_store.VectorStoreContract`` is the executable form of this protocol.

A database-backed store (``ragcore.stores.chroma``, ``ragcore.stores.postgres.pgvector``) also lists its
ids and can hide rows from its searches (``ragcore.stores.consistency.ExternalRows``), so the
index can find and repair what a crash between a database write and a persist left apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from .filters import MetadataFilters

# Scores are "higher is more similar": cosine similarity, the inner product, or the negative
# Euclidean distance (as in LlamaIndex).
METRICS: tuple[str, ...] = ("cosine", "dot", "euclidean")


@dataclass(frozen=True, slots=True)
class StoreSpec:
    """How an index manifest names a store: its registry name and its opener's settings."""

    type: str  # the name in ragcore.stores.registry, e.g. "SimpleVectorStore"
    settings: dict[str, Any] = field(default_factory=dict)  # JSON values only, never secrets


@runtime_checkable
class VectorStore(Protocol):
    """Vectors under node ids, searched by similarity with metadata filters."""

    @property
    def dim(self) -> int | None:
        """The vector dimension, or None while the store cannot know it (empty, no schema)."""
        ...

    @property
    def metric(self) -> str:
        """One of ``METRICS``: how ``query`` scores a row against the query vector."""
        ...

    def __len__(self) -> int:
        """How many rows the store holds."""
        ...

    def add(
        self,
        ids: Sequence[str],
        vectors: np.ndarray,
        metadata: Sequence[dict[str, Any]] | None = None,
        *,
        doc_ids: Sequence[str | None] | None = None,
    ) -> None:
        """Add rows (``doc_ids``: each node's document, None for loose nodes); an id already
        present is replaced, vector, metadata and document id alike."""
        ...

    def delete(self, ids: Sequence[str]) -> int:
        """Remove rows by node id (unknown ids are ignored); returns how many were removed."""
        ...

    def delete_ref_doc(self, doc_id: str) -> int:
        """Remove every row added with ``doc_id``; returns how many were removed."""
        ...

    def query(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        filters: MetadataFilters | None = None,
        node_ids: Sequence[str] | None = None,
    ) -> list[tuple[str, float]]:
        """(id, score) pairs, best first, among rows passing ``filters`` and, when given, whose
        id is in ``node_ids``; at most ``top_k`` (a positive integer, else ConfigError)."""
        ...

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        """A (len(ids), dim) float32 array in the order of ``ids`` (StoreError for an unknown
        id); under the cosine metric the rows may come back normalized."""
        ...

    def describe(self) -> StoreSpec:
        """The registry name and settings that reopen this store from an index manifest."""
        ...

    def persist(self, folder: Path) -> None:
        """Make the rows durable for the index folder being written at ``folder`` (the caller
        makes the write atomic): write files there, or nothing if the rows live elsewhere."""
        ...
