"""Segments of the document store: node records written once, then linked from save to save.

Each segment holds the node records of one save (or of one merge) in the four files of
``node_file``: ``nodes.jsonl``, ``offsets.npy``, ``node_crcs.npy`` and ``node_ids.json`` (its
lines' ids), and the BM25 postings of its nodes (``postings``: analyzed from a new batch's
records, merged from the kept rows' postings in a merge, linked with a kept segment;
``keyword_parts``). The first may be the index folder itself (``""``: the files as every earlier
version wrote them, one segment holding every node); later ones are folders ``nodes-NNNNNN``.
``docs.json`` lists the segments and ``node_runs.npy`` says which of their rows the docstore
holds, in its order (documents one by one, then nodes without one), as runs of consecutive
rows: ``(first row, count)``, rows numbered across the segments in order. A save links the
segments it keeps into the new generation (``ragcore.stores.simple.segments.link_segment``), writes the
nodes added since as a new segment and rewrites a segment with records no longer held (a
deleted document leaves the disk at the next save, as the index promises). The size-tiered
merges (``plan_merges``) are the merger's, never a save's: ``segment_merge``. ``docstore``
decides what a save writes; this module only reads and lays out the segments.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import numpy as np

from ...disk import file_size, load_npy, read_json, write_json
from ...errors import IndexFormatError
from ...stores.simple.segments import (
    Segment, link_segment, merges_due, next_name, plan_merges, segment_folder, stamp,
)
from ...stores.simple.persist import ids_digest
from .checksums import damaged
from ..keyword_parts import (
    carry_postings, postings_of_nodes, saved_postings, segment_postings,
    segment_postings_written,
)
from .node_file import NodeFile, load_crcs, load_offsets, write_node_file
from ..postings import Postings, merge_postings

NODE_FILES = ("nodes.jsonl", "offsets.npy", "node_crcs.npy", "node_ids.json")
RUNS = "node_runs.npy"


def read_segment(folder: Path, name: str, rows: int | None) -> tuple[Segment, NodeFile]:
    """A segment's node file, checked (``rows``: as listed in docs.json; None: a folder
    written before segments, whose node_ids.json says)."""
    where = segment_folder(folder, name)
    ids_path, nodes_path = where / "node_ids.json", where / "nodes.jsonl"
    ids = read_json(ids_path)
    if not isinstance(ids, list) or (rows is not None and len(ids) != rows):
        found = len(ids) if isinstance(ids, list) else type(ids).__name__
        raise IndexFormatError(f"{ids_path}: lists {found} nodes but docs.json says {rows}")
    offsets = load_offsets(where / "offsets.npy", nodes=len(ids))
    size = file_size(nodes_path)
    if size != int(offsets[-1]):
        raise IndexFormatError(
            f"{nodes_path}: is {size} bytes but its offsets end at {int(offsets[-1])}: "
            "the file is truncated or was edited; rebuild the index"
        )
    crcs = load_crcs(where / "node_crcs.npy", nodes=len(ids))
    # The postings are mapped now, as the node file is opened now: a keyword query after a
    # writer removed this generation reads them all the same.
    segment = Segment(name, where, len(ids), {"node_ids.json": ids_digest(ids)},
                      stamp(where, NODE_FILES), saved_postings(where, len(ids)))
    return segment, NodeFile(nodes_path, offsets, ids, crcs)


def listed_segments(path: Path, listed: Any, prefix: str) -> list[tuple[str, int | None]]:
    """(name, rows) of the segments docs.json lists under a key (None, in a folder written
    before segments: one segment in the folder itself)."""
    if listed is None:
        return [("", None)]
    if not isinstance(listed, list) or not all(
        isinstance(s, dict) and type(s.get("rows")) is int and s["rows"] >= 0
        and isinstance(s.get("name"), str) and re.fullmatch(rf"|{prefix}-\d{{6,}}", s["name"])
        for s in listed
    ):
        raise IndexFormatError(f"{path}: the list of {prefix} segments is not segment names "
                               "and row counts; the index is damaged: rebuild it")
    return [(s["name"], s["rows"]) for s in listed]


def write_ids(folder: Path, name: str, ids: list[str], postings: Postings | None = None,
              ) -> Segment:
    """Write a segment's node_ids.json and keyword postings (after its node file; ``postings``
    None: built from its records) and describe the segment."""
    where = segment_folder(folder, name)
    write_json(where / "node_ids.json", ids)
    return Segment(name, where, len(ids), {"node_ids.json": ids_digest(ids)},
                   stamp(where, NODE_FILES), segment_postings_written(where, ids, postings))


def read_runs(folder: Path, listed: Any, rows: int) -> np.ndarray:
    """node_runs.npy, checked against the segments' ``rows`` (a folder written before segments
    has none: one run over its one segment)."""
    if listed is None:
        return np.array([[0, rows]], dtype=np.int64)
    runs = load_npy(folder / RUNS, "node runs")
    if runs.ndim != 2 or runs.shape[1:] != (2,) or runs.dtype != np.int64:
        raise damaged(folder / RUNS, f"expected (first row, count) pairs of int64, found shape "
                                     f"{runs.shape} of {runs.dtype}")
    if len(runs) and (runs.min() < 0 or int((runs[:, 0] + runs[:, 1]).max()) > rows):
        raise damaged(folder / RUNS, f"names rows outside the {rows} rows of the segments")
    return runs


def as_runs(rows: np.ndarray) -> np.ndarray:
    """Global ``rows`` as runs of consecutive rows: (first row, count) pairs, int64."""
    rows = np.asarray(rows, dtype=np.int64)
    if not len(rows):
        return np.zeros((0, 2), dtype=np.int64)
    starts = np.concatenate([[0], np.flatnonzero(np.diff(rows) != 1) + 1])
    counts = np.diff(np.concatenate([starts, [len(rows)]]))
    return np.stack([rows[starts], counts], axis=1).astype(np.int64)


def runs_ids(runs: np.ndarray, files: list[NodeFile], starts: list[int]) -> list[str]:
    """The node ids the runs name, in order."""
    ids: list[str] = []
    for first, count in runs.tolist():
        while count > 0:  # a run may go on into the next segment
            segment = int(np.searchsorted(starts, first, side="right")) - 1
            local = first - starts[segment]
            part = files[segment].ids[local : local + count]
            ids += part
            first, count = first + len(part), count - len(part)
    return ids


def runs_rows(runs: np.ndarray) -> np.ndarray:
    """Every row the runs name, in order."""
    if not len(runs):
        return np.zeros(0, dtype=np.int64)
    return np.concatenate([np.arange(a, a + n, dtype=np.int64) for a, n in runs.tolist()])


def runs_sizes(runs: np.ndarray, starts: list[int]) -> list[int]:
    """How many rows the runs name in each segment (``starts``: each one's first row, then
    the end), from the runs alone: no row is listed."""
    bounds = np.asarray(starts, dtype=np.int64)
    if not len(runs):
        return [0] * (len(bounds) - 1)
    order = np.argsort(runs[:, 0], kind="stable")  # runs never overlap
    firsts, counts = runs[order, 0], runs[order, 1]
    named = np.concatenate([[0], np.cumsum(counts)])  # rows of the runs before each run
    at = np.searchsorted(firsts, bounds)  # the runs that start below each bound
    last = np.maximum(at - 1, 0)  # the one of them that may go on past the bound
    over = np.where(at > 0, np.maximum(firsts[last] + counts[last] - bounds, 0), 0)
    return np.diff(named[at] - over).tolist()


class NodeSegments:
    """The segments a docstore was read from or last saved to, and where each node is."""

    def __init__(self, folder: Path, segments: list[Segment], files: list[NodeFile],
                 ids: list[str] | None, runs: np.ndarray, sizes: list[int] | None = None
                 ) -> None:
        self.folder = folder  # the index folder holding docs.json
        self.segments, self.files = segments, files
        self.starts = np.cumsum([0, *(s.rows for s in segments)]).tolist()
        self.runs = runs  # the rows of the nodes the docstore held then, in its order
        self._ids = ids  # and their ids (None: listed from the runs on first use)
        self._sizes = sizes  # rows held per segment, counted on first use
        self._where: dict[str, int] | None = None  # node id -> row, built on first use
        self._run_ends: np.ndarray | None = None  # cumulative run lengths, on first use

    @property
    def ids(self) -> list[str]:
        """The ids of the nodes the docstore held then, in its order."""
        if self._ids is None:
            self._ids = runs_ids(self.runs, self.files, self.starts)
        return self._ids

    def held_rows(self) -> np.ndarray:
        """The rows the docstore held then, in its order."""
        return runs_rows(self.runs)

    def sizes(self) -> list[int]:
        if self._sizes is None:
            self._sizes = runs_sizes(self.runs, self.starts)
        return self._sizes

    def where(self) -> dict[str, int]:
        if self._where is None:
            self._where = dict(zip(self.ids, runs_rows(self.runs).tolist()))
        return self._where

    def locate(self, node_id: str) -> tuple[NodeFile, int] | None:
        """The node file and line of ``node_id`` as held then (None if it was not)."""
        row = self.where().get(node_id)
        return None if row is None else self.at(row)

    def at(self, row: int) -> tuple[NodeFile, int]:
        """The node file and line of global ``row`` (no id map needed)."""
        segment = int(np.searchsorted(self.starts, row, side="right")) - 1
        return self.files[segment], row - self.starts[segment]

    def held_row(self, position: int) -> int:
        """The global row of the ``position``-th node the docstore held then (no id map)."""
        if self._run_ends is None:
            self._run_ends = np.cumsum(self.runs[:, 1])
        run = int(np.searchsorted(self._run_ends, position, side="right"))
        start, count = (int(v) for v in self.runs[run])
        return start + position - (int(self._run_ends[run]) - count)

    def linkable(self) -> bool:
        """Whether every segment's files are still the ones read or written."""
        return all(s.stamp is not None and stamp(s.folder, NODE_FILES) == s.stamp
                   for s in self.segments)

    def live(self, rows: np.ndarray) -> list[int]:
        """How many of ``rows`` (global, -1 for none) each segment holds."""
        held = rows[rows >= 0]
        owner = np.searchsorted(self.starts, held, side="right") - 1
        return np.bincount(owner, minlength=len(self.segments)).tolist()

    def runs_of(self, rows: np.ndarray) -> list[tuple[NodeFile, int, int]]:
        """Global ``rows`` (ascending) as runs of consecutive lines of one node file."""
        if not len(rows):
            return []
        starts = np.asarray(self.starts, dtype=np.int64)
        owner = np.searchsorted(starts, rows, side="right") - 1
        local = rows - starts[owner]
        cuts = np.flatnonzero((np.diff(rows) != 1) | (np.diff(owner) != 0)) + 1
        firsts, lasts = np.concatenate([[0], cuts]), np.concatenate([cuts, [len(rows)]])
        return [(self.files[owner[a]], int(local[a]), int(local[b - 1]) + 1)
                for a, b in zip(firsts.tolist(), lasts.tolist())]

    def ids_at(self, rows: np.ndarray) -> list[str]:
        """The node ids on global ``rows``."""
        return [file.ids[i] for file, a, b in self.runs_of(rows) for i in range(a, b)]

    def merges_due(self) -> bool:
        """Whether the segments are due a size-tiered merge (``segment_merge``)."""
        return merges_due(self.sizes(), [s.rows for s in self.segments])

    def append(self, folder: Path, added: list[str],
               encode: Callable[[str], bytes]) -> NodeSegments | None:
        """The save of nodes ``added`` after every one held (none removed or moved): link every
        segment, write them as one more; None when a segment holds rows no longer held
        (``save`` rewrites it)."""
        if plan_merges(self.sizes(), [s.rows for s in self.segments], tiers=False):
            return None
        return self._append(folder, added, encode)

    def save(self, folder: Path, node_ids: list[str], fresh: set[str],
             encode: Callable[[str], bytes]) -> NodeSegments:
        """Link the segments kept into the index folder ``folder``, write the ``fresh`` nodes
        as a new segment and rewrite those with rows no longer held; returns the segments."""
        held = len(self.ids)
        rows = None
        if node_ids[:held] == self.ids and fresh.issuperset(node_ids[held:]):
            added, sizes = node_ids[held:], self.sizes()  # only added, after the others
        else:
            rows, added = self._lookup(node_ids, fresh)
            sizes = self.live(rows)
        count = len(self.segments)
        units = sizes + ([len(added)] if added else [])
        runs = plan_merges(units, [s.rows for s in self.segments] + units[count:], tiers=False)
        if added and not any(b > count for _, b in runs):
            runs.append((count, count + 1))
        if rows is None and runs in ([], [(count, count + 1)]):
            return self._append(folder, added, encode, node_ids)
        if rows is None:
            rows = np.concatenate([runs_rows(self.runs), np.full(len(added), -1)])
        layout = _Layout(self, folder, rows, len(units))
        ends = dict(runs)
        unit = 0
        while unit < len(units):
            if unit in ends:
                layout.write(unit, ends[unit], added if ends[unit] > count else [], encode)
                unit = ends[unit]
            else:
                layout.link(unit)
                unit += 1
        return layout.result(node_ids, rows, len(added))

    def _append(self, folder: Path, added: list[str], encode: Callable[[str], bytes],
                node_ids: list[str] | None = None) -> NodeSegments:
        """The save of an ingestion: link every segment, write the added nodes as one more
        (the cost of the batch, whatever the size of the index)."""
        for segment, file in zip(self.segments, self.files):
            link_forward(segment, file, folder)
        segments, files, runs = list(self.segments), list(self.files), self.runs
        if added:
            name = next_name(segments, "nodes") if segments else ""
            target = segment_folder(folder, name)
            target.mkdir(parents=True, exist_ok=True)
            offsets, crcs = write_node_file(target, (encode(i) for i in added), len(added))
            segments.append(write_ids(folder, name, added, postings_of_nodes(added, encode)))
            files.append(NodeFile(target / "nodes.jsonl", offsets, added, crcs))
            runs = np.concatenate([runs, [[self.starts[-1], len(added)]]]).astype(np.int64)
        sizes = self.sizes() + ([len(added)] if added else [])
        saved = NodeSegments(folder, segments, files, node_ids, runs, sizes)
        if self._where is not None:  # every node kept its row: the map goes on
            saved._where = self._where
            saved._where.update(zip(added, range(self.starts[-1], saved.starts[-1])))
        return saved

    def _lookup(self, node_ids: list[str], fresh: set[str]) -> tuple[np.ndarray, list[str]]:
        """The row of each of ``node_ids`` (-1 for the ``fresh`` ones), and the fresh ones."""
        where = self.where()
        rows = np.fromiter((-1 if i in fresh else where[i] for i in node_ids), np.int64,
                           len(node_ids))
        return rows, [i for i, r in zip(node_ids, rows.tolist()) if r < 0]


def link_forward(segment: Segment, file: NodeFile, folder: Path) -> None:
    """Link a kept segment (and its keyword postings) into the index folder being written, and
    read it from there."""
    if not link_segment(segment, folder, NODE_FILES):
        raise damaged(segment.folder, "the segment's files changed while the index was being "
                      "saved; save it again")
    carry_postings(segment, file, segment_folder(folder, segment.name))
    segment.folder = segment_folder(folder, segment.name)  # the next save links it from here
    file.path = segment.folder / "nodes.jsonl"


class _Layout:
    """The segments of the save being written, and where the rows they keep went."""

    def __init__(self, old: NodeSegments, folder: Path, rows: np.ndarray, units: int) -> None:
        self.old, self.folder, self.units = old, folder, units
        self.held = np.sort(rows[rows >= 0])
        self.owner = np.searchsorted(old.starts, self.held, side="right") - 1
        self.remap = np.full(old.starts[-1], -1, dtype=np.int64)
        self.segments: list[Segment] = []
        self.files: list[NodeFile] = []
        self.position, self.fresh_start = 0, 0

    def link(self, unit: int) -> None:
        segment, file = self.old.segments[unit], self.old.files[unit]
        link_forward(segment, file, self.folder)
        first, last = self.old.starts[unit], self.old.starts[unit + 1]
        self.remap[first:last] = self.position + np.arange(last - first)
        self._add(segment, file)

    def write(self, first: int, last: int, added: list[str],
              encode: Callable[[str], bytes]) -> None:
        kept = self.held[(self.owner >= first) & (self.owner < last)]
        if not len(kept) and not added:
            return  # nothing of these segments is held any more: they are dropped
        whole = (first, last) == (0, self.units) and not self.segments
        name = "" if whole else next_name([*self.old.segments, *self.segments], "nodes")
        target = segment_folder(self.folder, name)
        target.mkdir(parents=True, exist_ok=True)
        records = [*self.old.runs_of(kept), *(encode(i) for i in added)]
        ids = self.old.ids_at(kept) + added
        offsets, crcs = write_node_file(target, records, len(ids))
        file = NodeFile(target / "nodes.jsonl", offsets, ids, crcs)
        fresh = postings_of_nodes(added, encode)
        segment = write_ids(self.folder, name, ids, self._postings(first, last, kept, fresh))
        self.remap[kept] = self.position + np.arange(len(kept))
        self.fresh_start = self.position + len(kept)
        self._add(segment, file)

    def _postings(self, first: int, last: int, kept: np.ndarray, fresh: Postings) -> Postings:
        """The merged segment's postings: the kept rows' own, then the added nodes' ones."""
        old = self.old
        owner = np.searchsorted(old.starts, kept, side="right") - 1
        parts = [(segment_postings(old.segments[i], old.files[i]),
                  kept[owner == i] - old.starts[i]) for i in range(first, min(last, len(old.files)))]
        return merge_postings([*parts, (fresh, np.arange(len(fresh)))])

    def _add(self, segment: Segment, file: NodeFile) -> None:
        self.segments.append(segment)
        self.files.append(file)
        self.position += segment.rows

    def result(self, node_ids: list[str], rows: np.ndarray, added: int) -> NodeSegments:
        new = np.empty(len(rows), dtype=np.int64)
        held = rows >= 0
        new[held] = self.remap[rows[held]]
        new[~held] = self.fresh_start + np.arange(added)
        return NodeSegments(self.folder, self.segments, self.files, node_ids, as_runs(new))
