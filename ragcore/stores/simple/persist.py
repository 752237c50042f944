"""The on-disk form of a ``SimpleVectorStore``: a header, segments, a deletion bitmap.

``store.json`` is the header (format tag, version, metric, dim, live row count, and from
version 3 the segments and how many of their rows are deleted). Each segment (``segments``)
holds the rows of one save in four files: ``vectors.npy`` the float32 matrix (memory-mapped on
load when large), ``vector_ids.json`` the row ids, ``vector_metadata.json`` each row's metadata
and ``vector_doc_ids.json`` each row's document id (null for loose nodes), the last two kept as
raw bytes on load (``Piece``) so that they are parsed only when a filter or a delete needs
them. ``vector_deleted.npy`` marks, one bit per row of the segments in order, the rows deleted
since they were written. Versions 1 and 2 are one segment in the folder itself and no
deletions; version 1 folders have no ``vector_doc_ids.json``: their rows' documents are unknown
(None), so ``delete_ref_doc`` finds none of them. ``store`` holds the store itself and decides
what a save links and writes; this module only moves its parts.

``ids_digest`` is the digest of an ordered id list that the index manifest records for each
segment's ``vector_ids.json`` and ``vector_doc_ids.json`` and the docstore's ``node_ids.json``
(``ragcore.index.disk.bindings``), so ids swapped or shifted between files are caught even when each
file's checksum was recomputed; a ``Piece`` given its digest checks it when first parsed.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...disk import load_npy, read_bytes, read_json, write_npy
from ...errors import IndexFormatError
from .rows import MatrixRows, open_part
from .segments import SEGMENT_FILES, Segment, segment_folder, stamp

STORE_FORMAT = "ragcore-simple-vector-store"
STORE_VERSION = 3  # version 2 added vector_doc_ids.json; version 3 segments and deletions
READABLE_VERSIONS = (1, 2, 3)
DELETED = "vector_deleted.npy"


@dataclass(slots=True)
class Piece:
    """One segment's per-row JSON list as read or written, parsed only when asked for."""

    raw: bytes | None  # None: no such file (version 1 document ids): None per row
    source: str  # the file ``raw`` came from, for error messages
    rows: int  # rows in ``raw``, deleted ones included
    live: np.ndarray | None = None  # the rows still present (None: all)
    digest: str | None = None  # ``ids_digest`` of the values in ``raw``, checked when parsed

    def size(self) -> int:
        return self.rows if self.live is None else len(self.live)

    def values(self) -> list[Any]:
        values = parse_column(self.source, self.raw, self.rows)
        if self.digest is not None and ids_digest(values) != self.digest:
            raise ids_mismatch(self.source)
        return values if self.live is None else [values[i] for i in self.live.tolist()]


@dataclass(slots=True)
class Column:
    """A per-row JSON list: parsed (``values``), or the segments' pieces followed by the values
    added since the last save (``added``), parsed only when someone asks."""

    values: list[Any] | None
    pieces: list[Piece] = field(default_factory=list)
    added: list[Any] = field(default_factory=list)  # rows appended after the pieces

    def parsed(self) -> list[Any]:
        """The values, parsing and checking the pieces on first use."""
        if self.values is None:
            values = [v for piece in self.pieces for v in piece.values()]
            self.values, self.pieces, self.added = values + self.added, [], []
        return self.values

    def extend(self, values: Sequence[Any]) -> None:
        """Append rows without parsing what was loaded."""
        (self.added if self.values is None else self.values).extend(values)

    def keep(self, mask: np.ndarray) -> None:
        """Keep the rows where ``mask`` is true (pieces mark the others dead, unparsed)."""
        if self.values is not None:
            self.values = [v for v, k in zip(self.values, mask.tolist()) if k]
            return
        start = 0
        for piece in self.pieces:
            keep = mask[start : start + piece.size()]
            if not keep.all():
                piece.live = (np.arange(piece.rows) if piece.live is None else piece.live)[keep]
            start += len(keep)
        self.added = [v for v, k in zip(self.added, mask[start:].tolist()) if k]

    def rows(self, start: int, stop: int) -> list[Any]:
        """The values of rows ``start..stop-1``, parsing only the pieces they are in."""
        if self.values is not None:
            return self.values[start:stop]
        out, first = [], 0
        for piece in [*self.pieces, None]:
            size = len(self.added) if piece is None else piece.size()
            if first < stop and first + size > start:
                values = self.added if piece is None else piece.values()
                out += values[max(start - first, 0) : stop - first]
            first += size
        return out

    def saved(self, first: int, last: int, piece: Piece, *, whole: bool = False) -> None:
        """Pieces ``first..last-1`` (and the added rows, when ``last`` is past the pieces) were
        saved, live rows only, as ``piece`` (``whole``: every row, which is then held as the
        bytes written, smaller in memory than parsed values)."""
        if whole:
            self.values, self.pieces, self.added = None, [piece], []
        elif self.values is None:
            if last > len(self.pieces):
                self.added = []
            self.pieces[first:last] = [piece]

    def drop(self, positions: list[int]) -> None:
        """Forget the pieces at ``positions`` (they have no live row)."""
        if self.values is None:
            for i in reversed(positions):
                del self.pieces[i]


@dataclass(slots=True)
class StoreFiles:
    """What a store folder holds, checked against its header."""

    metric: str
    count: int
    segments: list[Segment]
    parts: list[np.ndarray]
    live: list[np.ndarray | None]
    ids: list[str]  # live rows' ids
    metadata: Column  # vector_metadata.json of each segment, unparsed
    doc_ids: Column  # vector_doc_ids.json of each segment, unparsed


def write_segment(
    folder: Path, name: str, *, vectors: MatrixRows, start: int, ids: list[str],
    metadata: list[Any], doc_ids: list[Any],
) -> tuple[Segment, Piece, Piece]:
    """Write live rows ``start..start+len(ids)-1`` as segment ``name`` of the store folder."""
    target = segment_folder(folder, name)
    if name:
        shutil.rmtree(target, ignore_errors=True)  # a save into a folder used before
    target.mkdir(parents=True, exist_ok=True)
    for file in SEGMENT_FILES:
        (target / file).unlink(missing_ok=True)  # never write through a link
    vectors.write(target / "vectors.npy", start, start + len(ids))
    (target / "vector_ids.json").write_text(json.dumps(ids), encoding="utf-8")
    meta, docs = _encode(metadata), _encode(doc_ids)
    (target / "vector_metadata.json").write_bytes(meta)
    (target / "vector_doc_ids.json").write_bytes(docs)
    segment = Segment(name, target, len(ids), stamp=stamp(target))
    segment.digests = {
        "vector_ids.json": ids_digest(ids), "vector_doc_ids.json": ids_digest(doc_ids),
    }
    meta_piece = Piece(meta, str(target / "vector_metadata.json"), len(ids))
    doc_piece = Piece(docs, str(target / "vector_doc_ids.json"), len(ids))
    return segment, meta_piece, doc_piece


def write_header(
    folder: Path, *, metric: str, dim: int | None, count: int, segments: list[Segment],
    live: list[np.ndarray | None],
) -> None:
    """Write ``store.json`` and, if rows of the segments were deleted, the deletion bitmap."""
    dead = np.zeros(sum(s.rows for s in segments), dtype=bool)
    start = 0
    for segment, rows in zip(segments, live):
        if rows is not None:
            flags = np.ones(segment.rows, dtype=bool)
            flags[rows] = False
            dead[start : start + segment.rows] = flags
        start += segment.rows
    deleted = int(dead.sum())
    (folder / DELETED).unlink(missing_ok=True)
    if deleted:
        write_npy(folder / DELETED, np.packbits(dead))
    header = {
        "format": STORE_FORMAT, "version": STORE_VERSION, "metric": metric, "dim": dim,
        "count": count, "segments": [{"name": s.name, "rows": s.rows} for s in segments],
        "deleted": deleted,
    }
    (folder / "store.json").unlink(missing_ok=True)
    (folder / "store.json").write_text(json.dumps(header, indent=1), encoding="utf-8")


def read_store(folder: Path, *, metrics: Sequence[str]) -> StoreFiles:
    """Read a folder written by ``write_header`` and ``write_segment`` (or an earlier version);
    IndexFormatError naming the file at fault."""
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
    segments = _header_segments(folder, header, version, count)
    live = _live_rows(folder, segments, header.get("deleted", 0))
    files = StoreFiles(metric, count, segments, [], live, [], Column(None), Column(None))
    for segment, rows in zip(segments, live):
        _read_segment(segment, rows, files, with_doc_ids=version >= 2)
    if len(files.ids) != count:
        raise IndexFormatError(f"{folder / 'store.json'}: lists {count} rows but its segments "
                               f"hold {len(files.ids)} live ones; rebuild the index")
    return files


def _header_segments(folder: Path, header: dict, version: int, count: int) -> list[Segment]:
    if version < 3:
        return [Segment("", folder, count, stamp=stamp(folder))]
    listed = header.get("segments")
    if not isinstance(listed, list) or not all(
        isinstance(s, dict) and isinstance(s.get("name"), str) and type(s.get("rows")) is int
        and re.fullmatch(r"|vectors-\d{6,}", s["name"]) is not None for s in listed
    ):
        raise IndexFormatError(f"{folder / 'store.json'}: 'segments' is not a list of segment "
                               "names and row counts; the index is damaged: rebuild it")
    return [
        Segment(s["name"], segment_folder(folder, s["name"]), s["rows"],
                stamp=stamp(segment_folder(folder, s["name"])))
        for s in listed
    ]


def _live_rows(folder: Path, segments: list[Segment], deleted: Any) -> list[np.ndarray | None]:
    total = sum(s.rows for s in segments)
    if not deleted:
        return [None] * len(segments)
    bits = load_npy(folder / DELETED, "deletion bitmap")
    if bits.dtype != np.uint8 or bits.shape != ((total + 7) // 8,):
        raise IndexFormatError(f"{folder / DELETED}: expected {(total + 7) // 8} bytes of bits "
                               f"for {total} rows, found {bits.shape} of {bits.dtype}")
    dead = np.unpackbits(bits)[:total].astype(bool)
    if int(dead.sum()) != deleted:
        raise IndexFormatError(f"{folder / DELETED}: marks {int(dead.sum())} rows deleted but "
                               f"store.json says {deleted}; the index is damaged: rebuild it")
    live, start = [], 0
    for segment in segments:
        flags = dead[start : start + segment.rows]
        live.append(np.flatnonzero(~flags) if flags.any() else None)
        start += segment.rows
    return live


def _read_segment(segment: Segment, live: np.ndarray | None, files: StoreFiles, *,
                  with_doc_ids: bool) -> None:
    ids = read_json(segment.path("vector_ids.json"))
    if not isinstance(ids, list) or len(ids) != segment.rows:
        raise IndexFormatError(
            f"{segment.path('vector_ids.json')}: expected {segment.rows} ids, found "
            f"{len(ids) if isinstance(ids, list) else type(ids).__name__}"
        )
    segment.digests["vector_ids.json"] = ids_digest(ids)
    files.parts.append(load_vectors(segment.path("vectors.npy"), rows=segment.rows))
    files.ids += ids if live is None else [ids[i] for i in live.tolist()]
    meta, docs = segment.path("vector_metadata.json"), segment.path("vector_doc_ids.json")
    files.metadata.pieces.append(Piece(read_bytes(meta), str(meta), segment.rows, live))
    doc_raw = read_bytes(docs) if with_doc_ids else None
    files.doc_ids.pieces.append(Piece(doc_raw, str(docs), segment.rows, live))


def _encode(values: list[Any]) -> bytes:
    return json.dumps(values, ensure_ascii=False, default=str).encode()


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


def load_vectors(path: Path, *, rows: int) -> np.ndarray:
    """A segment's vectors file (memory-mapped when large), checked for shape and dtype."""
    matrix = open_part(path, rows)
    if rows == 0:
        return matrix
    if matrix.ndim != 2 or matrix.dtype != np.float32:
        raise IndexFormatError(
            f"{path}: expected a 2-D float32 array, found {matrix.ndim}-D {matrix.dtype}"
        )
    if matrix.shape[0] != rows:
        raise IndexFormatError(f"{path}: holds {matrix.shape[0]} vectors but {rows} were expected")
    return matrix
