"""DictVectorStore: a vector store written outside ragcore, as a plugin author would write one.

A dict of rows and a brute-force numpy scan, with filters from ``ragcore.stores.filters``. It
lives in the test suite on purpose: it proves that a store needs no edit inside ragcore to pass
the contract suite, persist with an index, and load back through ``VectorStoreIndex.load``. It
keeps its rows in one ``dict_store.npz`` file in the index folder (vectors as an array, ids,
metadata and document ids as JSON text) and registers itself as "DictVectorStore" on import.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ragcore.errors import ConfigError, IndexFormatError, StoreError
from ragcore.stores import METRICS, MetadataFilters, StoreSpec, matches
from ragcore.stores.registry import register_vector_store

FILE = "dict_store.npz"


class DictVectorStore:
    """Rows in a dict: id -> (vector, metadata, document id); every query scans them all."""

    def __init__(self, *, metric: str = "cosine") -> None:
        if metric not in METRICS:
            raise ConfigError(f"metric {metric!r} is not one of {METRICS}")
        self._metric = metric
        self._rows: dict[str, tuple[np.ndarray, dict[str, Any], str | None]] = {}

    @property
    def dim(self) -> int | None:
        first = next(iter(self._rows.values()), None)
        return None if first is None else int(first[0].shape[0])

    @property
    def metric(self) -> str:
        return self._metric

    def __len__(self) -> int:
        return len(self._rows)

    def add(self, ids, vectors, metadata=None, *, doc_ids=None) -> None:
        vectors = np.asarray(vectors, dtype=np.float32)
        if len(ids) and self.dim is not None and vectors.shape[1] != self.dim:
            raise StoreError(f"vectors have dimension {vectors.shape[1]}, the store {self.dim}")
        for row, node_id in enumerate(ids):
            meta = dict(metadata[row]) if metadata is not None else {}
            doc = doc_ids[row] if doc_ids is not None else None
            self._rows[node_id] = (vectors[row].copy(), meta, doc)

    def delete(self, ids: Sequence[str]) -> int:
        return sum(self._rows.pop(i, None) is not None for i in set(ids))

    def delete_ref_doc(self, doc_id: str) -> int:
        return self.delete([i for i, row in self._rows.items() if row[2] == doc_id])

    def query(self, vector, *, top_k, filters: MetadataFilters | None = None, node_ids=None):
        if isinstance(top_k, bool) or not isinstance(top_k, int) or top_k < 1:
            raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")
        if not self._rows:
            return []
        query = np.asarray(vector, dtype=np.float64)
        if query.shape[0] != self.dim:
            raise StoreError(f"query has dimension {query.shape[0]}, the store {self.dim}")
        allowed = None if node_ids is None else set(node_ids)
        scored = [
            (node_id, self._score(row[0].astype(np.float64), query))
            for node_id, row in self._rows.items()
            if (allowed is None or node_id in allowed)
            and (filters is None or matches(filters, row[1]))
        ]
        scored.sort(key=lambda hit: -hit[1])
        return scored[:top_k]

    def _score(self, row: np.ndarray, query: np.ndarray) -> float:
        if self._metric == "dot":
            return float(row @ query)
        if self._metric == "euclidean":
            return -float(np.linalg.norm(row - query))
        return float(row @ query / (np.linalg.norm(row) * np.linalg.norm(query)))

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        for node_id in ids:
            if node_id not in self._rows:
                raise StoreError(f"no vector with id {node_id!r} in the store")
        return np.array([self._rows[i][0] for i in ids], dtype=np.float32).reshape(
            len(ids), self.dim or 0
        )

    def describe(self) -> StoreSpec:
        return StoreSpec("DictVectorStore", {"metric": self._metric})

    def persist(self, folder: Path) -> None:
        ids = list(self._rows)
        rows = [self._rows[i] for i in ids]
        vectors = np.array([r[0] for r in rows], dtype=np.float32)
        np.savez(
            Path(folder) / FILE,
            vectors=vectors.reshape(len(ids), self.dim or 0),
            ids=np.array(json.dumps(ids)),
            metadata=np.array(json.dumps([r[1] for r in rows])),
            doc_ids=np.array(json.dumps([r[2] for r in rows])),
        )

    @classmethod
    def open(cls, folder: Path, settings: dict[str, Any]) -> DictVectorStore:
        """The opener registered for "DictVectorStore": rows from the index folder."""
        store = cls(metric=settings["metric"])
        try:
            with np.load(Path(folder) / FILE, allow_pickle=False) as data:
                vectors = data["vectors"]
                ids, metadata, doc_ids = (
                    json.loads(str(data[key])) for key in ("ids", "metadata", "doc_ids")
                )
        except (OSError, KeyError, ValueError) as exc:
            raise IndexFormatError(f"{folder / FILE}: not a DictVectorStore file ({exc})") from exc
        store.add(ids, vectors, metadata, doc_ids=doc_ids)
        return store


register_vector_store("DictVectorStore", DictVectorStore.open, replace=True)
