"""Checks shared by the stores that keep their rows in a database (Chroma, Postgres).

``check_rows`` validates what ``add`` was given (lengths, unique ids, dimension, finite values)
before anything is written, so a bad batch changes nothing; ``ordered_vectors`` returns the rows
``get_vectors`` fetched in the order asked, naming the first id the store does not hold.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError, StoreError


def check_rows(ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[dict] | None,
               doc_ids: Sequence[str | None] | None, dim: int | None,
               ) -> tuple[list[str], np.ndarray, list[dict[str, Any]], list[str | None]]:
    """(ids, float32 matrix, metadata dicts, document ids), checked; StoreError if unfit."""
    ids = [str(i) for i in ids]
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim == 1 and len(ids) == 1:
        matrix = matrix.reshape(1, -1)
    if matrix.ndim != 2 or matrix.shape[0] != len(ids):
        raise StoreError(f"got {len(ids)} ids but vectors of shape {matrix.shape}")
    metadata = [dict(m or {}) for m in metadata] if metadata is not None else [{} for _ in ids]
    doc_ids = list(doc_ids) if doc_ids is not None else [None] * len(ids)
    if len(metadata) != len(ids):
        raise StoreError(f"got {len(metadata)} metadata entries for {len(ids)} ids")
    if len(doc_ids) != len(ids):
        raise StoreError(f"got {len(doc_ids)} document ids for {len(ids)} ids")
    if len(set(ids)) != len(ids):
        raise StoreError("ids passed to add() must be unique within one call")
    if ids and dim is not None and matrix.shape[1] != dim:
        raise StoreError(f"vectors have dimension {matrix.shape[1]} but the store holds "
                         f"dimension {dim}")
    if not np.isfinite(matrix).all():
        raise StoreError("vectors contain NaN or infinite values")
    return ids, matrix, metadata, doc_ids


def check_top_k(top_k: Any) -> None:
    if isinstance(top_k, bool) or not isinstance(top_k, (int, np.integer)) or top_k < 1:
        raise ConfigError(f"top_k ({top_k!r}) must be a positive integer")


def ordered_vectors(ids: Sequence[str], found: dict[str, Any], dim: int | None,
                    where: str) -> np.ndarray:
    """The vectors of ``ids`` in that order from ``found`` (id -> vector)."""
    missing = next((i for i in ids if i not in found), None)
    if missing is not None:
        raise StoreError(f"no vector with id {missing!r} in {where}")
    if not ids:
        return np.zeros((0, dim or 0), dtype=np.float32)
    rows = (found[i].to_numpy() if hasattr(found[i], "to_numpy") else found[i] for i in ids)
    return np.asarray([np.asarray(row, dtype=np.float32) for row in rows], dtype=np.float32)
