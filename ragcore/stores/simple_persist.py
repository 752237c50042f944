"""The on-disk form of a ``SimpleVectorStore``: five files, written and read back checked.

``store.json`` is the header (format tag, version, metric, dim, count); ``vectors.npy`` the
float32 matrix (memory-mapped on load when large); ``vector_ids.json`` the row ids;
``vector_metadata.json`` each row's metadata and ``vector_doc_ids.json`` each row's document id
(null for loose nodes), both kept as raw bytes on load so that they are parsed only when a
filter or a delete needs them. Version 1 folders have no ``vector_doc_ids.json``: their rows'
documents are unknown (None), so ``delete_ref_doc`` finds none of them. ``simple`` holds the
store itself; this module only moves its parts.

``ids_digest`` is the digest of an ordered id list that the index manifest records for
``vector_ids.json``, ``vector_doc_ids.json`` and the docstore's ``node_ids.json``
(``ragcore.index.bindings``), so ids swapped or shifted between files are caught even when each
file's checksum was recomputed; a ``Column`` given its digest checks it when first parsed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import IndexFormatError
from ..disk import load_npy, read_bytes, read_json
from .matrix_rows import MatrixRows

STORE_FORMAT = "ragcore-simple-vector-store"
STORE_VERSION = 2  # version 2 added vector_doc_ids.json
READABLE_VERSIONS = (1, 2)


@dataclass(slots=True)
class Column:
    """A per-row JSON list: parsed (``values``), or the bytes it was loaded or last written as
    (``raw``) followed by the values added since (``added``), parsed only when someone asks."""

    values: list[Any] | None
    raw: bytes | None = None
    source: str = ""  # the file ``raw`` came from, for error messages
    added: list[Any] = field(default_factory=list)  # rows appended after ``raw``
    digest: str | None = None  # ``ids_digest`` of the values in ``raw``, checked when parsed

    def parsed(self, count: int) -> list[Any]:
        """The values, parsing and checking ``raw`` on first use (None per row if absent)."""
        if self.values is None:
            self.values = parse_column(self.source, self.raw, count - len(self.added))
            if self.digest is not None and ids_digest(self.values) != self.digest:
                self.values = None
                raise ids_mismatch(self.source)
            self.values += self.added
            self.raw, self.added = None, []
        return self.values

    def extend(self, values: Sequence[Any]) -> None:
        """Append rows without parsing what was loaded."""
        (self.added if self.values is None else self.values).extend(values)

    def encode(self, count: int) -> bytes:
        if self.values is not None or self.raw is None:
            return json.dumps(self.parsed(count), ensure_ascii=False, default=str).encode()
        if not self.added:
            return self.raw  # nothing added since load: the bytes as they were
        more = json.dumps(self.added, ensure_ascii=False, default=str).encode()
        raw = memoryview(self.raw)  # slices of a view copy nothing: one join builds the result
        cut = _last_non_space(self.raw, len(self.raw))  # the closing bracket
        before = _last_non_space(self.raw, cut)  # "[" when there are no rows yet
        empty = self.raw[before : before + 1] == b"["
        return b"".join((raw[:cut], b"" if empty else b",", memoryview(more)[1:]))

    def settled(self, count: int) -> Column:
        """This column as the bytes ``encode`` writes (smaller in memory than parsed values)."""
        return Column(None, self.encode(count), self.source)


@dataclass(slots=True)
class StoreFiles:
    """What a store folder holds, checked against its header."""

    metric: str
    count: int
    matrix: np.ndarray
    ids: list[str]
    metadata: Column  # vector_metadata.json, unparsed
    doc_ids: Column  # vector_doc_ids.json, unparsed (no bytes in a version 1 folder)


def write_store(
    folder: Path,
    *,
    metric: str,
    dim: int | None,
    vectors: MatrixRows,
    ids: list[str],
    metadata: Column,
    doc_ids: Column,
) -> None:
    """Write the five files."""
    folder.mkdir(parents=True, exist_ok=True)
    header = {
        "format": STORE_FORMAT,
        "version": STORE_VERSION,
        "metric": metric,
        "dim": dim,
        "count": len(ids),
    }
    (folder / "store.json").write_text(json.dumps(header, indent=1), encoding="utf-8")
    vectors.write(folder / "vectors.npy")
    (folder / "vector_ids.json").write_text(json.dumps(ids), encoding="utf-8")
    (folder / "vector_metadata.json").write_bytes(metadata.encode(len(ids)))
    (folder / "vector_doc_ids.json").write_bytes(doc_ids.encode(len(ids)))


def read_store(folder: Path, *, metrics: Sequence[str], mmap_min_bytes: int) -> StoreFiles:
    """Read a folder written by ``write_store``; IndexFormatError naming the file at fault."""
    header = read_json(folder / "store.json")
    if not isinstance(header, dict) or header.get("format") != STORE_FORMAT:
        raise IndexFormatError(f"{folder / 'store.json'}: not a ragcore vector store header")
    version = header.get("version")
    if version not in READABLE_VERSIONS:
        raise IndexFormatError(
            f"{folder / 'store.json'}: vector store format version {version!r} is not supported"
            f" (this ragcore reads versions {READABLE_VERSIONS}): upgrade ragcore"
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
    meta_path, docs_path = folder / "vector_metadata.json", folder / "vector_doc_ids.json"
    metadata = Column(None, read_bytes(meta_path), str(meta_path))
    doc_ids = Column(None, read_bytes(docs_path) if version >= 2 else None, str(docs_path))
    return StoreFiles(metric, count, matrix, ids, metadata, doc_ids)


def ids_digest(ids: Sequence[str | None]) -> str:
    """A digest of an ordered list of ids (None allowed): equal lists give equal digests."""
    # Ids are joined by NUL, which no id we write holds; None (a loose node) is "\1".
    text = "\0".join(["\1" if i is None else str(i) for i in ids])
    digest = hashlib.blake2b(f"{len(ids)}:".encode(), digest_size=16)
    digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def ids_mismatch(source: object) -> IndexFormatError:
    """The error for an id list that differs from the digest the index manifest recorded."""
    return IndexFormatError(
        f"{source}: the ids, in order, are not the ones the index manifest recorded when the "
        "index was written (ids swapped or shifted between its files); the index is damaged: "
        "run `ragcore verify` for a full check, then rebuild the index from its documents "
        "(re-ingest them) or restore a backup of the folder"
    )


def _last_non_space(data: bytes, end: int) -> int:
    """The position of the last byte before ``end`` that is not JSON whitespace."""
    while end > 0 and data[end - 1] in b" \t\r\n":
        end -= 1
    return end - 1


def parse_column(source: str, raw: bytes | None, count: int) -> list[Any]:
    """A column's bytes, parsed and checked (``[None] * count`` when there are none)."""
    if raw is None:
        return [None] * count
    try:
        values = json.loads(raw)
    except ValueError as exc:
        raise IndexFormatError(f"{source}: damaged JSON ({exc}); rebuild the index") from exc
    if not isinstance(values, list) or len(values) != count:
        raise IndexFormatError(f"{source}: expected a list of {count} entries")
    return values


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
