"""Segments of the document records: a save writes only the records added or changed since.

A document's record is its hash, length, date, metadata and node count (``RECORD_COLUMNS``).
Each segment holds the records of one save (or merge): the columns in ``doc_records.json`` and
the node counts in ``node_counts.npy``; the first may be the index folder itself, later ones
are folders ``docs-NNNNNN``. ``doc_runs.npy`` lists the records the docstore holds, in its
order, as runs of rows numbered across the segments; each document takes its count of the
node ids of ``node_runs.npy`` in turn. A save links the segments it keeps and writes the records
of the documents added or changed since as a new segment (a document whose node count changed
is changed), so an ingestion's commit writes its batch's records and nothing else (``append``);
it rewrites a segment holding records no longer held (a deleted document's metadata leaves the
disk at the next save), as ``node_segments`` does for node records; the size-tiered merges are
the merger's (``segment_merge``).

docs.json's ``version`` 2 says the counts are the segments'; a folder without it (version 1)
has one ``node_counts.npy`` in the docstore's order instead: it loads, and its next save writes
the records again, whole, with their counts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...disk import load_npy, read_json, write_json, write_npy
from ...errors import IndexFormatError
from ...stores.simple.segments import (
    Segment, link_segment, merges_due, next_name, plan_merges, segment_folder, stamp,
)
from .checksums import damaged
from .node_segments import as_runs, listed_segments, runs_rows, runs_sizes

RECORDS = "doc_records.json"
RUNS = "doc_runs.npy"
COUNTS = "node_counts.npy"
VERSION = 2  # docs.json's: 1 (absent) had one node_counts.npy for every document
JSON_COLUMNS = ("doc_ids", "hashes", "characters", "indexed_at", "metadata")
RECORD_COLUMNS = (*JSON_COLUMNS, "node_counts")
FILES = (RECORDS, COUNTS)

Records = dict[str, list[Any]]  # RECORD_COLUMNS -> one value per document


def read_records(folder: Path, name: str, rows: int, *, counted: bool) -> tuple[Segment, Records]:
    """A segment's records, checked: every column a list of ``rows`` values (``counted``
    False: a version 1 segment, without node counts)."""
    where = segment_folder(folder, name)
    data = read_json(where / RECORDS)
    if not isinstance(data, dict) or not all(
        isinstance(data.get(c), list) and len(data[c]) == rows for c in JSON_COLUMNS
    ):
        raise IndexFormatError(f"{where / RECORDS}: expected the columns "
                               f"{', '.join(JSON_COLUMNS)} of {rows} documents each")
    if not counted:
        return Segment(name, where, rows, {}, None), data
    data["node_counts"] = read_counts(where / COUNTS, rows).tolist()
    return Segment(name, where, rows, {}, stamp(where, FILES)), data


def read_counts(path: Path, rows: int) -> np.ndarray:
    counts = load_npy(path, "counts")
    if counts.shape != (rows,) or counts.dtype != np.int64 or (rows and counts.min() < 0):
        raise damaged(path, f"expected {rows} node counts, found {counts.shape} of {counts.dtype}")
    return counts


def read_runs(folder: Path, rows: int) -> np.ndarray:
    """doc_runs.npy, checked against the segments' ``rows``."""
    runs = load_npy(folder / RUNS, "document runs")
    if runs.ndim != 2 or runs.shape[1:] != (2,) or runs.dtype != np.int64 or (
        len(runs) and (runs.min() < 0 or int((runs[:, 0] + runs[:, 1]).max()) > rows)
    ):
        raise damaged(folder / RUNS, f"is not runs of rows among the {rows} document records")
    return runs


def read_documents(folder: Path, data: Any) -> tuple[Any, DocSegments | None]:
    """docs.json's document columns in the docstore's order, node counts included, and the
    record segments they came from (None for a folder written before record segments, whose
    docs.json holds the columns itself)."""
    if not isinstance(data, dict) or "doc_segments" not in data:
        return data, None
    counted = data.get("version") == VERSION
    segments, records = [], []
    for name, rows in listed_segments(folder / "docs.json", data["doc_segments"], "docs"):
        segment, columns = read_records(folder, name, rows or 0, counted=counted)
        segments.append(segment)
        records.append(columns)
    disk = DocSegments(segments, records, np.zeros((0, 2), dtype=np.int64))
    disk.runs = runs = read_runs(folder, disk.starts[-1])
    if counted:
        return disk.gather(runs_rows(runs)), disk
    held = int(runs[:, 1].sum()) if len(runs) else 0
    columns = disk.gather(runs_rows(runs), JSON_COLUMNS)
    return {**columns, "node_counts": read_counts(folder / COUNTS, held).tolist()}, disk


class DocSegments:
    """The record segments a docstore was read from or last saved to."""

    def __init__(self, segments: list[Segment], records: list[Records], runs: np.ndarray,
                 sizes: list[int] | None = None) -> None:
        self.segments, self.records = segments, records
        self.starts = np.cumsum([0, *(s.rows for s in segments)]).tolist()
        self.runs = runs  # the rows of the documents the docstore held then, in its order
        self._sizes = sizes  # rows held per segment, counted on first use
        self._where: dict[str, int] | None = None  # document id -> row, built on first use

    def sizes(self) -> list[int]:
        if self._sizes is None:
            self._sizes = runs_sizes(self.runs, self.starts)
        return self._sizes

    def where(self) -> dict[str, int]:
        if self._where is None:
            rows = runs_rows(self.runs)
            self._where = dict(zip(self.gather(rows, ("doc_ids",))["doc_ids"], rows.tolist()))
        return self._where

    def linkable(self) -> bool:
        """Whether every segment's files are still the ones read or written (never for a
        version 1 segment: its records are written again, with their counts)."""
        return all(s.stamp is not None and stamp(s.folder, FILES) == s.stamp
                   for s in self.segments)

    def gather(self, rows: np.ndarray, columns: tuple[str, ...] = RECORD_COLUMNS) -> Records:
        """The records on global ``rows``, in that order, as columns."""
        out: Records = {c: [] for c in columns}
        for first, count in as_runs(rows).tolist():
            while count > 0:  # a run may go on into the next segment
                segment = int(np.searchsorted(self.starts, first, side="right")) - 1
                local = first - self.starts[segment]
                take = min(count, self.starts[segment + 1] - first)
                for column in columns:
                    out[column] += self.records[segment][column][local : local + take]
                first, count = first + take, count - take
        return out

    def merges_due(self) -> bool:
        """Whether the segments are due a size-tiered merge (``segment_merge``)."""
        return merges_due(self.sizes(), [s.rows for s in self.segments])

    def append(self, folder: Path, added: list[str],
               records: Callable[[list[str]], Records]) -> DocSegments | None:
        """The save of documents ``added`` after every one held (none changed or removed):
        link every segment into ``folder`` and write their records as one more; None when a
        segment holds rows no longer held (``save`` rewrites it)."""
        if plan_merges(self.sizes(), [s.rows for s in self.segments], tiers=False):
            return None
        segments, kept, runs = list(self.segments), list(self.records), self.runs
        for segment in segments:
            _link_forward(segment, folder)
        if added:
            columns = records(added)
            segments.append(write_records(folder, next_name(segments, "docs"), columns))
            kept.append(columns)
            runs = np.concatenate([runs, [[self.starts[-1], len(added)]]]).astype(np.int64)
        saved = DocSegments(segments, kept, runs, self.sizes() + ([len(added)] if added else []))
        if self._where is not None:  # every document kept its row: the map goes on
            saved._where = self._where
            saved._where.update(zip(added, range(self.starts[-1], saved.starts[-1])))
        return saved

    def save(self, folder: Path, doc_ids: list[str], dirty: set[str],
             records: Callable[[list[str]], Records]) -> DocSegments:
        """Link the segments kept into ``folder``; write the ``dirty`` documents' records as a
        new segment and rewrite those with rows no longer held; returns the segments now."""
        where = self.where()
        rows = np.fromiter((-1 if d in dirty else where.get(d, -1) for d in doc_ids), np.int64,
                           len(doc_ids))
        added = [d for d, r in zip(doc_ids, rows.tolist()) if r < 0]
        held = np.sort(rows[rows >= 0])
        owner = np.searchsorted(self.starts, held, side="right") - 1
        count = len(self.segments)
        units = np.bincount(owner, minlength=count).tolist() + ([len(added)] if added else [])
        runs = plan_merges(units, [s.rows for s in self.segments] + units[count:], tiers=False)
        if added and not any(b > count for _, b in runs):
            runs.append((count, count + 1))
        ends, remap = dict(runs), np.full(self.starts[-1], -1, dtype=np.int64)
        segments, kept_records, fresh_start, unit = [], [], 0, 0
        while unit < len(units):
            position = sum(s.rows for s in segments)
            if unit not in ends:
                segment = self.segments[unit]
                _link_forward(segment, folder)
                first, last = self.starts[unit], self.starts[unit + 1]
                remap[first:last] = position + np.arange(last - first)
                segments.append(segment)
                kept_records.append(self.records[unit])
                unit += 1
                continue
            last = ends[unit]
            kept = held[(owner >= unit) & (owner < last)]
            columns = _joined(self.gather(kept), records(added) if last > count else None)
            if len(columns["doc_ids"]):
                whole = (unit, last) == (0, len(units))
                name = "" if whole else next_name([*self.segments, *segments], "docs")
                segments.append(write_records(folder, name, columns))
                kept_records.append(columns)
                remap[kept] = position + np.arange(len(kept))
                fresh_start = position + len(kept)
            unit = last
        new = np.empty(len(rows), dtype=np.int64)
        new[rows >= 0] = remap[rows[rows >= 0]]
        new[rows < 0] = fresh_start + np.arange(len(added))
        return DocSegments(segments, kept_records, as_runs(new))


def doc_records(doc_ids: list[str], entries: list[Any]) -> Records:
    """The records of documents (the docstore's entries: hash, characters, indexed_at, their
    metadata as JSON text and how many nodes they have)."""
    return {
        "doc_ids": list(doc_ids), "hashes": [e.hash for e in entries],
        "characters": [e.characters for e in entries],
        "indexed_at": [e.indexed_at for e in entries],
        "metadata": [e.metadata_text() for e in entries],
        "node_counts": [len(e.node_ids) for e in entries],
    }


def _joined(kept: Records, added: Records | None) -> Records:
    return kept if added is None else {c: kept[c] + added[c] for c in RECORD_COLUMNS}


def _link_forward(segment: Segment, folder: Path) -> None:
    """Link a kept segment into the index folder being written, and read it from there."""
    if not link_segment(segment, folder, FILES):
        raise damaged(segment.folder, "the segment's files changed while the index was being "
                      "saved; save it again")
    segment.folder = segment_folder(folder, segment.name)


def write_records(folder: Path, name: str, columns: Records) -> Segment:
    where = segment_folder(folder, name)
    where.mkdir(parents=True, exist_ok=True)
    for file in FILES:  # never write through a link to a kept file
        (where / file).unlink(missing_ok=True)
    write_json(where / RECORDS, {c: columns[c] for c in JSON_COLUMNS})
    write_npy(where / COUNTS, np.array(columns["node_counts"], dtype=np.int64))
    return Segment(name, where, len(columns["doc_ids"]), {}, stamp(where, FILES))


def first_records(folder: Path, columns: Records) -> DocSegments:
    """A docstore's records written whole, as one segment in the index folder itself."""
    segment = write_records(folder, "", columns)
    rows = len(columns["doc_ids"])
    return DocSegments([segment], [columns], as_runs(np.arange(rows)), [rows])
