"""The on-disk form of a ``SimpleVectorStore``: four files, written and read back checked.

``store.json`` is the header (format tag, version, metric, dim, count); ``vectors.npy`` the
float32 matrix (memory-mapped on load when large); ``vector_ids.json`` the row ids; and
``vector_metadata.json`` each row's metadata, kept as raw bytes on load so that it is parsed only
when a filter needs it. ``simple`` holds the store itself; this module only moves its parts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import IndexFormatError
from ..disk import load_npy, read_bytes, read_json, write_npy

STORE_FORMAT = "ragcore-simple-vector-store"
STORE_VERSION = 1


@dataclass(slots=True)
class StoreFiles:
    """What a store folder holds, checked against its header."""

    metric: str
    count: int
    matrix: np.ndarray
    ids: list[str]
    metadata_raw: bytes  # vector_metadata.json as written


def write_store(
    folder: Path,
    *,
    metric: str,
    dim: int | None,
    vectors: np.ndarray,
    ids: list[str],
    metadata: list[dict[str, Any]] | None,
    metadata_raw: bytes | None,
) -> None:
    """Write the four files; ``metadata`` None means copy ``metadata_raw`` as it was loaded."""
    folder.mkdir(parents=True, exist_ok=True)
    header = {
        "format": STORE_FORMAT,
        "version": STORE_VERSION,
        "metric": metric,
        "dim": dim,
        "count": len(ids),
    }
    (folder / "store.json").write_text(json.dumps(header, indent=1), encoding="utf-8")
    write_npy(folder / "vectors.npy", vectors)
    (folder / "vector_ids.json").write_text(json.dumps(ids), encoding="utf-8")
    with open(folder / "vector_metadata.json", "wb") as out:
        if metadata is None:  # never parsed since load: copy the bytes as they were
            out.write(metadata_raw or b"[]")
        else:
            out.write(json.dumps(metadata, ensure_ascii=False, default=str).encode())


def read_store(folder: Path, *, metrics: Sequence[str], mmap_min_bytes: int) -> StoreFiles:
    """Read a folder written by ``write_store``; IndexFormatError naming the file at fault."""
    header = read_json(folder / "store.json")
    if not isinstance(header, dict) or header.get("format") != STORE_FORMAT:
        raise IndexFormatError(f"{folder / 'store.json'}: not a ragcore vector store header")
    if header.get("version") != STORE_VERSION:
        raise IndexFormatError(
            f"{folder / 'store.json'}: vector store format version {header.get('version')!r}"
            f" is not supported (this ragcore reads version {STORE_VERSION}): upgrade ragcore"
        )
    count, metric = header.get("count"), header.get("metric")
    if metric not in metrics or not isinstance(count, int) or count < 0:
        raise IndexFormatError(
            f"{folder / 'store.json'}: bad metric {metric!r} or count {count!r}"
        )
    ids = read_json(folder / "vector_ids.json")
    if not isinstance(ids, list) or len(ids) != count:
        raise IndexFormatError(
            f"{folder / 'vector_ids.json'}: expected {count} ids, found "
            f"{len(ids) if isinstance(ids, list) else type(ids).__name__}"
        )
    matrix = load_vectors(folder / "vectors.npy", rows=count, mmap_min_bytes=mmap_min_bytes)
    metadata_raw = read_bytes(folder / "vector_metadata.json")
    return StoreFiles(metric, count, matrix, ids, metadata_raw)


def load_vectors(path: Path, *, rows: int, mmap_min_bytes: int) -> np.ndarray:
    """The vectors file (memory-mapped when large), checked for shape and dtype."""
    matrix = load_npy(path, "vector", mmap_min_bytes=mmap_min_bytes)
    if rows == 0:
        return matrix
    if matrix.ndim != 2 or matrix.dtype != np.float32:
        raise IndexFormatError(
            f"{path}: expected a 2-D float32 array, found {matrix.ndim}-D {matrix.dtype}"
        )
    if matrix.shape[0] != rows:
        raise IndexFormatError(f"{path}: holds {matrix.shape[0]} vectors but {rows} were expected")
    return matrix
