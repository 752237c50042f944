"""Segments of the document records: a save writes only the records added or changed since.

A document's record is its hash, length, date and metadata (the columns ``RECORD_COLUMNS``).
Each segment holds the records of one save (or merge) as columns in ``doc_records.json``; the
first may be the index folder itself, later ones are folders ``docs-NNNNNN``. ``doc_runs.npy``
lists the records the docstore holds, in its order, as runs of rows numbered across the
segments, and ``node_counts.npy`` how many nodes each document has (they take the node ids of
``node_runs.npy`` in turn). A save links the segments it keeps, writes the records of the
documents added or changed since as a new segment, rewrites a segment holding records no longer
held (a deleted document's metadata leaves the disk at the next save), as ``node_segments``
does for node records; the size-tiered merges are the merger's (``segment_merge``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import numpy as np

from ..disk import load_npy, read_json, write_json
from ..errors import IndexFormatError
from ..stores.segments import (
    Segment, link_segment, merges_due, next_name, plan_merges, segment_folder, stamp,
)
from .checksums import damaged
from .node_segments import as_runs, listed_segments, runs_rows

RECORDS = "doc_records.json"
RUNS = "doc_runs.npy"
COUNTS = "node_counts.npy"
RECORD_COLUMNS = ("doc_ids", "hashes", "characters", "indexed_at", "metadata")

Records = dict[str, list[Any]]  # RECORD_COLUMNS -> one value per document


def read_records(folder: Path, name: str, rows: int) -> tuple[Segment, Records]:
    """A segment's records, checked: every column a list of ``rows`` values."""
    where = segment_folder(folder, name)
    data = read_json(where / RECORDS)
    if not isinstance(data, dict) or not all(
        isinstance(data.get(c), list) and len(data[c]) == rows for c in RECORD_COLUMNS
    ):
        raise IndexFormatError(f"{where / RECORDS}: expected the columns "
                               f"{', '.join(RECORD_COLUMNS)} of {rows} documents each")
    return Segment(name, where, rows, {}, stamp(where, (RECORDS,))), data


def read_order(folder: Path, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """doc_runs.npy and node_counts.npy, checked against the segments' ``rows``."""
    runs, counts = load_npy(folder / RUNS, "document runs"), load_npy(folder / COUNTS, "counts")
    if runs.ndim != 2 or runs.shape[1:] != (2,) or runs.dtype != np.int64 or (
        len(runs) and (runs.min() < 0 or int((runs[:, 0] + runs[:, 1]).max()) > rows)
    ):
        raise damaged(folder / RUNS, f"is not runs of rows among the {rows} document records")
    held = int(runs[:, 1].sum()) if len(runs) else 0
    if counts.shape != (held,) or counts.dtype != np.int64 or (held and counts.min() < 0):
        raise damaged(folder / COUNTS, f"expected {held} node counts, found {counts.shape} "
                                       f"of {counts.dtype}")
    return runs, counts


def read_documents(folder: Path, data: Any) -> tuple[Any, DocSegments | None]:
    """docs.json's document columns in the docstore's order, node counts included, and the
    record segments they came from (None for a folder written before record segments, whose
    docs.json holds the columns itself)."""
    if not isinstance(data, dict) or "doc_segments" not in data:
        return data, None
    segments, records = [], []
    for name, rows in listed_segments(folder / "docs.json", data["doc_segments"], "docs"):
        segment, columns = read_records(folder, name, rows or 0)
        segments.append(segment)
        records.append(columns)
    disk = DocSegments(folder, segments, records, [], np.zeros((0, 2), dtype=np.int64))
    disk.runs, counts = read_order(folder, disk.starts[-1])
    columns = disk.gather(runs_rows(disk.runs))
    disk.ids = columns["doc_ids"]
    return {**columns, "node_counts": counts.tolist()}, disk


class DocSegments:
    """The record segments a docstore was read from or last saved to."""

    def __init__(self, folder: Path, segments: list[Segment], records: list[Records],
                 ids: list[str], runs: np.ndarray) -> None:
        self.segments, self.records = segments, records
        self.starts = np.cumsum([0, *(s.rows for s in segments)]).tolist()
        self.ids, self.runs = ids, runs  # the docstore's document ids then, and their rows
        self._where: dict[str, int] | None = None

    def where(self) -> dict[str, int]:
        if self._where is None:
            self._where = dict(zip(self.ids, runs_rows(self.runs).tolist()))
        return self._where

    def linkable(self) -> bool:
        return all(s.stamp is not None and stamp(s.folder, (RECORDS,)) == s.stamp
                   for s in self.segments)

    def gather(self, rows: np.ndarray) -> Records:
        """The records on global ``rows``, in that order, as columns."""
        out: Records = {c: [] for c in RECORD_COLUMNS}
        for first, count in as_runs(rows).tolist():
            while count > 0:  # a run may go on into the next segment
                segment = int(np.searchsorted(self.starts, first, side="right")) - 1
                local = first - self.starts[segment]
                take = min(count, self.starts[segment + 1] - first)
                for column in RECORD_COLUMNS:
                    out[column] += self.records[segment][column][local : local + take]
                first, count = first + take, count - take
        return out

    def merges_due(self) -> bool:
        """Whether the segments are due a size-tiered merge (``segment_merge``)."""
        owner = np.searchsorted(self.starts, runs_rows(self.runs), side="right") - 1
        live = np.bincount(owner, minlength=len(self.segments)).tolist()
        return merges_due(live, [s.rows for s in self.segments])

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
                if not link_segment(segment, folder, (RECORDS,)):
                    raise damaged(segment.folder, "the segment's files changed while the index "
                                  "was being saved; save it again")
                segment.folder = segment_folder(folder, segment.name)
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
        return DocSegments(folder, segments, kept_records, doc_ids, as_runs(new))


def doc_records(doc_ids: list[str], entries: list[Any]) -> Records:
    """The records of documents (the docstore's entries: hash, characters, indexed_at and
    their metadata as JSON text)."""
    return {
        "doc_ids": list(doc_ids), "hashes": [e.hash for e in entries],
        "characters": [e.characters for e in entries],
        "indexed_at": [e.indexed_at for e in entries],
        "metadata": [e.metadata_text() for e in entries],
    }


def _joined(kept: Records, added: Records | None) -> Records:
    return kept if added is None else {c: kept[c] + added[c] for c in RECORD_COLUMNS}


def write_records(folder: Path, name: str, columns: Records) -> Segment:
    where = segment_folder(folder, name)
    where.mkdir(parents=True, exist_ok=True)
    (where / RECORDS).unlink(missing_ok=True)  # never write through a link to a kept file
    write_json(where / RECORDS, columns)
    return Segment(name, where, len(columns["doc_ids"]), {}, stamp(where, (RECORDS,)))


def first_records(folder: Path, columns: Records) -> DocSegments:
    """A docstore's records written whole, as one segment in the index folder itself."""
    segment = write_records(folder, "", columns)
    ids = list(columns["doc_ids"])
    return DocSegments(folder, [segment], [columns], ids, as_runs(np.arange(len(ids))))
