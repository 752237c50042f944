"""Segments of a ``SimpleVectorStore`` on disk: which are kept, linked forward, or merged.

A store folder (format version 3, ``persist``) lists its segments in ``store.json``: the
rows of one save each, never changed once written. The first may be the folder itself (``""``:
the files beside ``store.json``, as every earlier version wrote them); later ones are
subfolders ``vectors-NNNNNN``. A save links the files of the segments it keeps into the new
folder (``link_segment``: a hard link costs no bytes, and the index's next generation is a new
folder) and writes only the rows added since as a new segment, plus a bitmap of the rows deleted
from the kept ones. ``plan_merges`` keeps the count bounded, size-tiered as Lucene and LanceDB
compact, but never in a commit (a commit writes its batch and nothing else: ``merges_due``
says when the merger, ``ragcore.index.disk.merger``, has work): a tier is the order of magnitude of
a segment's live rows, and when the newest ``FACTOR`` segments are of one tier (or smaller)
they are merged into one of the next tier, so a tier never holds more than ``FACTOR - 1``
segments and each row is rewritten about once per tier
(O(log n) times in all). A segment with deleted rows is rewritten without them at the next save
(``EXPUNGE``: the share of deleted rows that triggers it; 0, the default, keeps the index's
promise that deleting a document and saving removes it from disk; a larger share leaves them,
marked in the deletion bitmap, until then or until a merge). A segment that cannot be linked
(its files were replaced, or are on another device) makes the save write every row again, as
one segment.
"""

from __future__ import annotations

import math
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

FACTOR = 10  # segments of one tier that trigger a merge
MAX_SEGMENTS = 48  # beyond this, the two smallest neighbours merge whatever their tiers
EXPUNGE = 0.0  # a segment with more than this share of its rows deleted is rewritten
SEGMENT_FILES = ("vectors.npy", "vector_ids.json", "vector_metadata.json", "vector_doc_ids.json")
_NAME = re.compile(r"(?:vectors|nodes|docs)-(\d{6,})")


@dataclass(slots=True)
class Segment:
    """One saved segment: where its files are now, its rows (dead ones included) and the
    digests of its id lists (``ids_digest``, by file name) as read or written."""

    name: str  # "" (the store folder itself) or "vectors-NNNNNN"
    folder: Path
    rows: int
    digests: dict[str, str] = field(default_factory=dict)
    stamp: tuple | None = None  # the files' identity when read or written (None: not linkable)
    extra: Any = None  # what the owner derives from the rows and keeps with them (postings)

    def path(self, file: str) -> Path:
        return self.folder / file

    def key(self, file: str) -> str:
        """The file's name relative to the store folder (how the manifest names it)."""
        return f"{self.name}/{file}" if self.name else file


def segment_folder(folder: Path, name: str) -> Path:
    return folder / name if name else folder


def next_name(segments: list[Segment], prefix: str = "vectors") -> str:
    numbers = [int(m.group(1)) for s in segments if (m := _NAME.fullmatch(s.name))]
    return f"{prefix}-{max(numbers, default=0) + 1:06d}"


def stamp(folder: Path, files: tuple[str, ...] = SEGMENT_FILES) -> tuple | None:
    """The identity of a segment's files (device, inode, size, mtime), None if one is missing."""
    try:
        stats = [os.stat(folder / f) for f in files]
    except OSError:
        return None
    return tuple((s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns) for s in stats)


def link_segment(
    segment: Segment, folder: Path, files: tuple[str, ...] = SEGMENT_FILES
) -> bool:
    """Make ``segment``'s files appear in the store folder ``folder`` under its name: hard
    links (a copy where links are refused); False if its files are not the ones it read."""
    target = segment_folder(folder, segment.name)
    if segment.stamp is None or stamp(segment.folder, files) != segment.stamp:
        return False
    if target.exists() and os.path.samefile(target, segment.folder):
        return True  # saving into the folder it was read from
    target.mkdir(parents=True, exist_ok=True)
    for file in files:
        (target / file).unlink(missing_ok=True)
        try:
            os.link(segment.path(file), target / file)
        except OSError:  # another device, or a file system without hard links
            shutil.copyfile(segment.path(file), target / file)
    return True


def tier(rows: int) -> int:
    return int(math.log10(rows)) if rows > 0 else 0


def plan_merges(live: list[int], rows: list[int], *, tiers: bool = True
                ) -> list[tuple[int, int]]:
    """Runs ``(first, last)`` of segments to merge (each into one), given each segment's live
    and total rows, oldest first; runs do not overlap and a run may be one segment (one with
    deleted rows, rewritten without them). ``tiers`` False: only those (what a commit does;
    the size-tiered merges are the merger's, ``merges_due``)."""
    runs = [(i, i + 1, size) for i, size in enumerate(live)]
    merged = {i for i, (n, total) in enumerate(zip(live, rows)) if total - n > EXPUNGE * total}
    while tiers:
        last = tier(runs[-1][2]) if runs else 0
        count = 0
        while count < len(runs) and tier(runs[-1 - count][2]) <= last:
            count += 1
        if count >= FACTOR:
            runs[-count:] = [_join(runs[-count:])]
        elif len(runs) > MAX_SEGMENTS:
            pair = min(range(len(runs) - 1), key=lambda i: runs[i][2] + runs[i + 1][2])
            runs[pair : pair + 2] = [_join(runs[pair : pair + 2])]
        else:
            break
    return [(a, b) for a, b, _ in runs if b - a > 1 or a in merged]


def merges_due(live: list[int], rows: list[int]) -> bool:
    """Whether a size tier (or the segment count) asks for a merge that a commit leaves."""
    return plan_merges(live, rows) != plan_merges(live, rows, tiers=False)


def _join(runs: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    return runs[0][0], runs[-1][1], sum(r[2] for r in runs)


def merge_runs(live: list[int], rows: list[int]) -> list[tuple[int, int]]:
    """The runs of more than one segment ``plan_merges`` asks for: the merger's work (a
    segment alone with deleted rows is a commit's)."""
    return [(a, b) for a, b in plan_merges(live, rows) if b - a > 1]


def merged_positions(kept: list[np.ndarray], now: list[np.ndarray]) -> np.ndarray | None:
    """Where the rows ``now`` (each merged-away segment's local rows held now, ascending) are
    in a merged segment written from the rows ``kept`` (held when the merge began): rows
    deleted meanwhile are left out; None if a row held now was not kept (then the merge is
    not the segments' any more)."""
    out, offset = [], 0
    for before, after in zip(kept, now):
        at = np.searchsorted(before, after)
        if len(after) and (at.max() >= len(before) or not np.array_equal(before[at], after)):
            return None
        out.append(offset + at)
        offset += len(before)
    return np.concatenate(out).astype(np.int64) if out else np.zeros(0, dtype=np.int64)


def locate(segments: list[Segment], merged: list[Segment]) -> int | None:
    """Where the segments ``merged`` (the same objects, in order) are in ``segments`` now;
    None if one is gone (rewritten, dropped, merged by someone else)."""
    for i, segment in enumerate(segments):
        if segment is merged[0]:
            here = segments[i : i + len(merged)]
            same = len(here) == len(merged) and all(a is b for a, b in zip(here, merged))
            return i if same else None
    return None
