"""A size-tiered merge of a ``SimpleVectorStore``'s segments, written outside the writer lock.

The merger (``ragcore.index.disk.merger``) works in three steps; this module does them for the
store. ``StoreMerge.plan`` (under the index's lock) notes the runs of segments
``segments.merge_runs`` asks for: the segments themselves, their vectors (read-only parts,
memory-mapped) and live rows, and their rows' ids, metadata and document ids as held then.
``write`` (no lock: commits, deletes and queries go on) writes each run's live rows as one
segment into the merger's own folder, with its approximate index when it is big (``ann``).
``install`` (under the index's lock again, then a commit publishes it) puts each merged segment
in place of its run when the run's segments are all still there, unchanged (else the run is
dropped): its rows are the run's live rows in the same order, so the store's ids, row numbers
and columns stay as they are, and rows deleted since the plan are marked dead in it
(``segments.merged_positions``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .rows import MatrixRows, open_part
from .segments import Segment, locate, merge_runs, merged_positions, next_name, stamp
from .persist import Piece, write_segment


@dataclass(slots=True)
class _Run:
    """One run of segments to merge, as it was when planned, and what was written for it."""

    segments: list[Segment]
    parts: list[tuple[np.ndarray, np.ndarray]]  # each segment's rows and live rows then
    ids: list[str]
    metadata: list[Any] | list[Piece]  # the rows' values, or their segments' pieces
    doc_ids: list[Any] | list[Piece]
    written: tuple[Segment, np.ndarray, Piece, Piece] | None = None


@dataclass(slots=True)
class StoreMerge:
    """The store's side of one merge: its runs, planned, then written, then installed."""

    runs: list[_Run] = field(default_factory=list)

    @classmethod
    def plan(cls, store: Any) -> StoreMerge | None:  # a SimpleVectorStore
        """The runs due in ``store``'s saved segments (call under the index's lock); None when
        none is due or its segments cannot be read as saved."""
        segments = store._segments
        if not all(s.stamp is not None and stamp(s.folder) == s.stamp for s in segments):
            return None
        sizes = store._matrix.part_sizes()
        starts = np.cumsum([0, *sizes]).tolist()
        merge = cls()
        for a, b in merge_runs(sizes, [s.rows for s in segments]):
            rows = slice(starts[a], starts[b])
            merge.runs.append(_Run(
                list(segments[a:b]),
                store._matrix.saved_parts(a, b), store._ids[rows],
                _column(store._metadata, a, b, rows), _column(store._doc_ids, a, b, rows),
            ))
        return merge if merge.runs else None

    def write(self, folder: Path, ann: Any) -> None:
        """Write each run's rows as a segment under ``folder`` (the merger's own; no lock)."""
        for number, run in enumerate(self.runs, 1):
            matrix = MatrixRows()
            matrix.adopt([p for p, _ in run.parts], [live for _, live in run.parts])
            segment, meta, docs = write_segment(
                folder, f"vectors-{number:06d}", vectors=matrix, start=0, ids=run.ids,
                metadata=_values(run.metadata), doc_ids=_values(run.doc_ids),
            )
            part = open_part(segment.path("vectors.npy"), segment.rows)
            if ann is not None:  # the merged segment's approximate index, built here
                ann.write_index(part, segment.folder)
            run.written = (segment, part, meta, docs)

    def install(self, store: Any) -> bool:
        """Put the merged segments in place of their runs in ``store`` (under the index's
        lock, before a commit); False if no run's segments were all still there."""
        installed = False
        for run in self.runs:
            at = locate(store._segments, run.segments)
            if at is None or run.written is None:
                continue
            last = at + len(run.segments)
            now = [live for _, live in store._matrix.saved_parts(at, last)]
            live = merged_positions([k for _, k in run.parts], now)
            if live is None:
                continue
            segment, part, meta, docs = run.written
            segment.name = next_name(store._segments)
            whole = None if len(live) == segment.rows else live
            store._matrix.replace(at, last, part, whole)
            store._segments[at:last] = [segment]
            if store._ann is not None:
                store._ann.adopt(part, segment.folder)
            for column, piece in ((store._metadata, meta), (store._doc_ids, docs)):
                if column.values is None:  # still unparsed: the merged segment's piece
                    piece.live = whole
                    column.pieces[at:last] = [piece]
            installed = True
        return installed


def _column(column: Any, first: int, last: int, rows: slice) -> list[Any] | list[Piece]:
    """A store column's rows ``rows`` (segments ``first..last-1``) as they are now: the values
    when parsed, else copies of the segments' pieces (parsed later, outside the lock)."""
    if column.values is not None:
        return column.values[rows]
    return [dataclasses.replace(p) for p in column.pieces[first:last]]


def _values(held: list[Any] | list[Piece]) -> list[Any]:
    if held and isinstance(held[0], Piece):
        return [v for piece in held for v in piece.values()]
    return list(held)
