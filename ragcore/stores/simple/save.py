"""Saving a ``SimpleVectorStore``: which segments a save links, which rows it writes.

``store`` holds the store and its search; ``persist`` the file format; this module the
save itself, which works on the store's parts (its matrix, segments, columns, approximate
indexes). A save (a commit's) links every saved segment and writes the rows added since as one
new segment, plus a segment with deleted rows rewritten without them (``segments.EXPUNGE``):
its cost follows the batch. The size-tiered merges (``segments.plan_merges``) are never a
save's: the merger writes them outside the lock (``merge``, ``ragcore.index.disk.merger``)
and the next save links them as it links any segment.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...errors import IndexFormatError
from .rows import open_part
from .segments import Segment, link_segment, merges_due, next_name, plan_merges, segment_folder
from .segments import stamp
from .persist import write_header, write_segment



def save_store(store: Any, folder: Path) -> None:  # a SimpleVectorStore
    """Save ``store`` into the index folder ``folder``: link the saved segments kept, write the
    rows added since as a new segment (and rewrite those with deleted rows), then the header
    and the deletion bitmap; the rows are then read from there."""
    folder.mkdir(parents=True, exist_ok=True)
    for i in reversed(store._matrix.drop_empty_parts()):
        del store._segments[i]
        store._metadata.drop([i])
        store._doc_ids.drop([i])
    if not store._segments and not store._matrix.tail_size:  # empty: the files still exist
        _write_rows(store, folder, 0, 1, 0, 0, "")
    elif all(s.stamp is not None and stamp(s.folder) == s.stamp for s in store._segments):
        _save_segments(store, folder)
    else:  # saved files replaced, or read from an older format: write every row again
        _write_rows(store, folder, 0, len(store._segments) + 1, 0, len(store), "")
    write_header(folder, metric=store.metric, dim=store.dim, count=len(store),
                 segments=store._segments, live=store._matrix.live_rows())


def store_merges_due(store: Any) -> bool:
    """Whether the store's saved segments are due a size-tiered merge."""
    return merges_due(store._matrix.part_sizes(), [s.rows for s in store._segments])


def _save_segments(store: Any, folder: Path) -> None:
    sizes = store._matrix.part_sizes()
    tail = store._matrix.tail_size
    totals = [s.rows for s in store._segments] + ([tail] if tail else [])
    runs = plan_merges(sizes + ([tail] if tail else []), totals, tiers=False)
    if tail and not any(b > len(sizes) for _, b in runs):
        runs.append((len(sizes), len(sizes) + 1))
    merged = {i for a, b in runs for i in range(a, b)}
    parts = store._matrix.parts()
    for i, segment in enumerate(store._segments):
        if i in merged:
            continue
        if not link_segment(segment, folder):
            raise IndexFormatError(f"{segment.folder}: the segment's files changed while "
                                   "the index was being saved; save it again")
        if store._ann is not None:
            store._ann.carry(parts[i], segment.folder, segment_folder(folder, segment.name))
        segment.folder = segment_folder(folder, segment.name)  # the next save links it
    starts = np.cumsum([0, *sizes, tail]).tolist()
    units, named = len(sizes) + (1 if tail else 0), list(store._segments)
    for a, b in reversed(runs):
        name = "" if (a, b) == (0, units) else next_name(named)  # a first save, or all
        named.append(Segment(name, folder, 0))
        _write_rows(store, folder, a, b, starts[a], starts[b], name)


def _write_rows(store: Any, folder: Path, first: int, last: int, start: int,
                stop: int, name: str) -> None:
    """Write live rows ``start..stop-1`` (segments ``first..last-1``, the tail being the one
    past the saved ones) as segment ``name``, and read them from there from now on."""
    segment, meta, docs = write_segment(
        folder, name, vectors=store._matrix, start=start, ids=store._ids[start:stop],
        metadata=store._metadata.rows(start, stop), doc_ids=store._doc_ids.rows(start, stop),
    )
    part = open_part(segment.path("vectors.npy"), segment.rows)
    store._matrix.replace(first, last, part)
    if store._ann is not None:  # a big segment's approximate index is built and saved now
        store._ann.save_index(part, segment.folder)
    store._segments[first:last] = [segment]
    whole = start == 0 and stop == len(store)
    store._metadata.saved(first, last, meta, whole=whole)
    store._doc_ids.saved(first, last, docs, whole=whole)
