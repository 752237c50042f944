"""The VectorStore protocol: rows of (id, vector, metadata) searched by similarity.

The index keeps node text and documents itself (``ragcore.index.docstore``); a store only knows ids,
vectors and the metadata its filters read. ``SimpleVectorStore`` (numpy, in memory) is the
default; stores for bigger corpora implement the same protocol and pass the same contract tests.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from .filters import MetadataFilters

QueryMode = Literal["similarity", "mmr"]
QUERY_MODES: tuple[str, ...] = ("similarity", "mmr")


@runtime_checkable
class VectorStore(Protocol):
    """Stores vectors under string ids and returns the ids most similar to a query vector."""

    metric: str

    def __len__(self) -> int: ...

    def add(
        self,
        ids: Sequence[str],
        vectors: np.ndarray,
        metadata: Sequence[dict[str, Any]] | None = None,
    ) -> None:
        """Add rows; an id already present is replaced."""
        ...

    def delete(self, ids: Sequence[str]) -> int:
        """Remove rows by id (unknown ids are ignored); returns how many were removed."""
        ...

    def query(
        self,
        vector: np.ndarray,
        *,
        top_k: int,
        filters: MetadataFilters | None = None,
        node_ids: Sequence[str] | None = None,
        mode: QueryMode = "similarity",
        mmr_threshold: float = 0.5,
    ) -> list[tuple[str, float]]:
        """(id, score) pairs, best first; higher scores are more similar."""
        ...

    def persist(self, folder: Path) -> None:
        """Write this store's files into ``folder`` (the caller makes the write atomic)."""
        ...

    @classmethod
    def load(cls, folder: Path) -> VectorStore:
        """Read a store written by ``persist``."""
        ...
