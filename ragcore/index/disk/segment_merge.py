"""A size-tiered merge of the docstore's node and record segments, written outside the lock.

The docstore's side of the merger's three steps (``merger``; ``ragcore.stores.simple.merge``
is the vector store's). ``plan`` (under the index's lock) notes the runs of segments
``segments.merge_runs`` asks for, with the rows the docstore held in each then and the segments
as saved (``node_segments.NodeSegments``, ``doc_segments.DocSegments``: neither is changed
once made, a save makes new ones). ``write`` (no lock) copies those rows' records, in order,
into one segment per run in the merger's folder: node lines as they are, with their keyword
postings merged from the run's own (nothing is analyzed again), or document records.
``install`` (under the lock again, before the commit that publishes it) puts each merged segment
in place of its run when the run's segments are all still there, renumbering the docstore's
runs (``node_runs.npy``, ``doc_runs.npy``): a row deleted since the plan is simply no longer
named, and left on disk until that segment is next rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from ...stores.simple.segments import Segment, locate, merge_runs, merged_positions, next_name
from .doc_segments import DocSegments, write_records
from ..keyword_parts import segment_postings
from .node_file import NodeFile, write_node_file
from .node_segments import NodeSegments, as_runs, runs_rows, write_ids
from ..postings import merge_postings


@dataclass(slots=True)
class _Run:
    first: int
    last: int
    segments: list[Segment]  # the objects, to find them again at install
    kept: list[np.ndarray]  # per segment, its local rows held then (ascending)
    planned: list[Segment]  # copies as planned: files in the generation the merger holds
    written: tuple[Segment, Any] | None = None  # the merged segment and its node file/records


@dataclass(slots=True)
class SegmentsMerge:
    """One kind of docstore segments' side of a merge: ``prefix`` "nodes" or "docs"."""

    prefix: str
    disk: Any  # the NodeSegments or DocSegments as planned
    runs: list[_Run] = field(default_factory=list)

    @classmethod
    def plan(cls, prefix: str, disk: Any) -> SegmentsMerge | None:
        """The runs due in ``disk`` (call under the index's lock); None when none is due."""
        if disk is None or not disk.linkable():
            return None
        held = np.sort(runs_rows(disk.runs))
        owner = np.searchsorted(disk.starts, held, side="right") - 1
        live = np.bincount(owner, minlength=len(disk.segments)).tolist()
        merge = cls(prefix, disk)
        for a, b in merge_runs(live, [s.rows for s in disk.segments]):
            kept = [held[owner == i] - disk.starts[i] for i in range(a, b)]
            if sum(len(k) for k in kept):  # else a commit drops them
                merge.runs.append(_Run(a, b, list(disk.segments[a:b]), kept,
                                       [replace(s) for s in disk.segments[a:b]]))
        return merge if merge.runs else None

    def write(self, folder: Path) -> None:
        """Write each run's held rows as one segment under ``folder`` (no lock)."""
        for number, run in enumerate(self.runs, 1):
            name = f"{self.prefix}-{number:06d}"
            rows = np.concatenate([k + self.disk.starts[run.first + i]
                                   for i, k in enumerate(run.kept)])
            if self.prefix == "docs":
                columns = self.disk.gather(rows)
                run.written = (write_records(folder, name, columns), columns)
            else:
                run.written = self._write_nodes(folder, name, run, rows)

    def _write_nodes(self, folder: Path, name: str, run: _Run,
                     rows: np.ndarray) -> tuple[Segment, NodeFile]:
        disk, target = self.disk, folder / name
        target.mkdir(parents=True, exist_ok=True)
        ids = disk.ids_at(rows)
        offsets, crcs = write_node_file(target, disk.runs_of(rows), len(ids))
        parts = [(segment_postings(s, disk.files[run.first + i]), run.kept[i])
                 for i, s in enumerate(run.planned)]
        segment = write_ids(folder, name, ids, merge_postings(parts))
        return segment, NodeFile(target / "nodes.jsonl", offsets, ids, crcs)

    def install(self, disk: Any) -> Any:
        """``disk`` (the docstore's segments now) with the merged segments in place of their
        runs, or ``disk`` itself when no run's segments were all still there."""
        for run in self.runs:
            at = locate(disk.segments, run.segments)
            if at is None or run.written is None:
                continue
            segment, held = run.written
            rows = _renumbered(runs_rows(disk.runs), disk.starts, at, at + len(run.segments),
                               run.kept, segment.rows)
            if rows is None:
                continue
            segment.name = next_name(disk.segments, self.prefix)
            segments = [*disk.segments[:at], segment, *disk.segments[at + len(run.segments):]]
            if self.prefix == "docs":
                records = [*disk.records[:at], held, *disk.records[at + len(run.segments):]]
                disk = DocSegments(segments, records, as_runs(rows))
            else:
                files = [*disk.files[:at], held, *disk.files[at + len(run.segments):]]
                disk = NodeSegments(disk.folder, segments, files, None, as_runs(rows))
        return disk


def _renumbered(rows: np.ndarray, starts: list[int], first: int, last: int,
                kept: list[np.ndarray], merged: int) -> np.ndarray | None:
    """The held ``rows`` (global, in the docstore's order) once segments ``first..last-1``
    are one segment of ``merged`` rows written from their ``kept`` rows; None if a row held
    now was not kept."""
    low, high = starts[first], starts[last]
    inside = (rows >= low) & (rows < high)
    local = rows[inside]
    owner = np.searchsorted(starts, local, side="right") - 1
    now = [np.sort(local[owner == i] - starts[i]) for i in range(first, last)]
    positions = merged_positions(kept, now)
    if positions is None:
        return None
    remap = np.full(high - low, -1, dtype=np.int64)
    remap[np.concatenate([n + starts[first + i] - low for i, n in enumerate(now)])] = positions
    out = rows.copy()
    out[inside] = low + remap[local - low]
    out[rows >= high] -= (high - low) - merged
    return out
