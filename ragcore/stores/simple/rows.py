"""The vectors of a ``SimpleVectorStore``: saved segments plus rows added since, one matrix to read.

``MatrixRows`` keeps one read-only *part* per saved segment (its ``vectors.npy``, memory-mapped
when the file is large), each with the rows of it still live (a delete marks rows dead instead
of copying the survivors), and a growable in-memory *tail* of the rows added since the last save,
which grows by half again when full, so adding is amortized O(rows added). A save writes only
the tail (``write``), as a new segment, and ``replace`` then reads those rows from there:
an ingestion that saves every batch holds only the batch's vectors in memory and writes only
the batch, however big the index grows. A merge writes several parts' live rows as one file
(``write`` over their range, a block at a time) and ``replace`` maps it in their place.

Scores are computed part by part and concatenated: a query never copies the matrix (dead rows
are scored with the rest and dropped from the result, which costs less than gathering).
"""

from __future__ import annotations

import mmap
from pathlib import Path

import numpy as np

from ...disk import file_size, load_npy

# Memory-map a segment's vectors file above this size: an index is many segments, and mapped
# rows cost no resident memory until read (a query reads them all, from the page cache).
MMAP_MIN_BYTES = 1024 * 1024
_WRITE_ROWS = 8192  # rows per block when writing (12 MB at 384-d)


class MatrixRows:
    """Logical rows ``0..len`` of a float32 matrix: saved parts (live rows only), then a tail."""

    def __init__(self) -> None:
        self._parts: list[np.ndarray] = []  # read-only; memmaps of their files when large
        self._live: list[np.ndarray | None] = []  # per part: its live rows (None: every row)
        self._tail: np.ndarray | None = None  # (capacity, dim), rows 0.._tail_size in use
        self._tail_size = 0

    def __len__(self) -> int:
        return sum(self.part_sizes()) + self._tail_size

    @property
    def dim(self) -> int | None:
        for part in [*self._parts, self._tail]:
            if part is not None and part.shape[1]:  # an empty store saves a (0, 0) matrix
                return int(part.shape[1])
        return None

    @property
    def tail_size(self) -> int:
        """Rows added since the parts were saved."""
        return self._tail_size

    def part_sizes(self) -> list[int]:
        """Live rows per saved part."""
        return [len(p) if live is None else len(live) for p, live in zip(self._parts, self._live)]

    def parts(self) -> list[np.ndarray]:
        """The non-empty stored arrays in row order, dead rows included (views, nothing copied)."""
        parts = [p for p in self._parts if len(p)]
        if self._tail is not None and self._tail_size:
            parts.append(self._tail[: self._tail_size])
        return parts

    def views(self) -> list[tuple[np.ndarray, np.ndarray | None]]:
        """Each non-empty part (saved ones, then the tail) with its live rows (None: all)."""
        return self._views()

    def _views(self) -> list[tuple[np.ndarray, np.ndarray | None]]:
        views = [(p, live) for p, live in zip(self._parts, self._live) if len(p)]
        if self._tail is not None and self._tail_size:
            views.append((self._tail[: self._tail_size], None))
        return views

    def array(self) -> np.ndarray:
        """All live rows as one array: a view when they are one whole part, else a copy."""
        views = self._views()
        if not views:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        if len(views) == 1 and views[0][1] is None:
            return views[0][0]
        return np.concatenate([p if live is None else p[live] for p, live in views])

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The rows at ``rows`` (positions into all live rows), copied, in that order."""
        rows = np.asarray(rows, dtype=np.intp)
        out = np.empty((rows.size, self.dim or 0), dtype=np.float32)
        start = 0
        for part, live in self._views():
            stop = start + (len(part) if live is None else len(live))
            inside = (rows >= start) & (rows < stop)
            if inside.any():
                local = rows[inside] - start
                out[inside] = part[local if live is None else live[local]]
            start = stop
        return out

    def dot(self, query: np.ndarray) -> np.ndarray:
        """``matrix @ query`` over all live rows, one part at a time."""
        scores = [p @ query if live is None else (p @ query)[live] for p, live in self._views()]
        if len(scores) == 1:
            return scores[0]
        return np.concatenate(scores) if scores else np.zeros(0, np.float32)

    def square_norms(self) -> np.ndarray:
        norms = [np.einsum("ij,ij->i", p, p) for p, _ in self._views()]
        norms = [n if live is None else n[live] for n, (_, live) in zip(norms, self._views())]
        return np.concatenate(norms) if norms else np.zeros(0, np.float32)

    # -- changes -----------------------------------------------------------------------------

    def append(self, matrix: np.ndarray) -> None:
        """Add rows at the end (the tail grows by half again when full)."""
        size, dim = self._tail_size + len(matrix), matrix.shape[1]
        capacity = 0 if self._tail is None else self._tail.shape[0]
        if self._tail is None or size > capacity:
            grown = np.empty((max(size, capacity + capacity // 2, 16), dim), dtype=np.float32)
            if self._tail is not None:
                grown[: self._tail_size] = self._tail[: self._tail_size]
            self._tail = grown
        self._tail[self._tail_size : size] = matrix
        self._tail_size = size

    def keep(self, mask: np.ndarray) -> None:
        """Keep the rows where ``mask`` is true, in order: saved parts mark the others dead,
        the tail drops them."""
        start = 0
        for i, (part, live) in enumerate(zip(self._parts, self._live)):
            size = len(part) if live is None else len(live)
            keep = mask[start : start + size]
            if not keep.all():
                self._live[i] = (np.arange(len(part)) if live is None else live)[keep]
            start += size
        if self._tail is not None and self._tail_size:
            kept = self._tail[: self._tail_size][mask[start:]]
            self._tail[: len(kept)] = kept
            self._tail_size = len(kept)

    def live_rows(self) -> list[np.ndarray | None]:
        """Per saved part, its live rows (None: every row)."""
        return list(self._live)

    def adopt(self, parts: list[np.ndarray], live: list[np.ndarray | None]) -> None:
        """Take ``parts`` (loaded from saved segments) as all the rows."""
        self._parts, self._live = list(parts), list(live)
        self._tail, self._tail_size = None, 0

    def replace(self, first: int, last: int, part: np.ndarray,
                live: np.ndarray | None = None) -> None:
        """Parts ``first..last-1`` (the tail too when ``last`` is past the parts) were saved,
        live rows only, as ``part`` (of which ``live`` are live now; None: all): read their
        rows from it from now on."""
        if last > len(self._parts):
            self._tail, self._tail_size = None, 0
        self._parts[first:last] = [part]
        self._live[first:last] = [live]

    def saved_parts(self, first: int, last: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Saved parts ``first..last-1``, each with its live rows (all spelled out)."""
        return [(p, np.arange(len(p)) if live is None else live)
                for p, live in zip(self._parts[first:last], self._live[first:last])]

    def drop_empty_parts(self) -> list[int]:
        """Forget parts with no live row; returns their positions (before dropping)."""
        empty = [i for i, size in enumerate(self.part_sizes()) if size == 0]
        for i in reversed(empty):
            del self._parts[i], self._live[i]
        return empty

    # -- disk --------------------------------------------------------------------------------

    def write(self, path: Path, start: int = 0, stop: int | None = None) -> None:
        """Write live rows ``start..stop-1`` to ``path`` as a .npy file, a block of a part at a
        time: a run of consecutive rows is one copy (``read_rows``: the pages of the part's mapping
        it read are given back, else they would stay resident for the whole merge) and one
        write."""
        stop = len(self) if stop is None else stop
        header = {"descr": "<f4", "fortran_order": False, "shape": (stop - start, self.dim or 0)}
        with open(path, "xb") as out:  # a new file: never a link another generation shares
            np.lib.format.write_array_header_1_0(out, header)
            first = 0
            for part, live in self._views():
                size = len(part) if live is None else len(live)
                a, b = max(start - first, 0), min(stop - first, size)
                for block in range(a, b, _WRITE_ROWS):
                    end = min(block + _WRITE_ROWS, b)
                    out.write(_live_block(part, live, block, end).data)
                first += size


def _live_block(part: np.ndarray, live: np.ndarray | None, a: int, b: int) -> np.ndarray:
    """Live rows ``a..b-1`` of ``part`` as a contiguous float32 array."""
    if live is None:
        return read_rows(part, a, b)
    rows = live[a:b]
    first, stop = int(rows[0]), int(rows[-1]) + 1
    if stop - first > 4 * len(rows):  # few live rows far apart: gather them, not the span
        block = np.array(part[rows], dtype=np.float32)
        _give_back(part, first, stop)
        return block
    return read_rows(part, first, stop)[rows - first]


def read_rows(part: np.ndarray, start: int, stop: int) -> np.ndarray:
    """Rows ``start..stop-1`` of ``part``, copied contiguous as float32, the pages of a
    memory map read for them given back (a merge or an index build reading a whole segment
    must not keep it resident). The file may be gone (an older generation's): the mapping
    still reads it."""
    block = np.array(part[start:stop], dtype=np.float32)
    _give_back(part, start, stop)
    return block


def _give_back(part: np.ndarray, start: int, stop: int) -> None:
    """Drop rows ``start..stop-1`` of a read-only memory map from this process's resident
    memory (``MADV_DONTNEED``: the pages stay in the page cache; a later read maps them
    again). Nothing for an array in memory."""
    mapping = getattr(part, "_mmap", None)
    if mapping is None or part.flags.writeable or not hasattr(mmap, "MADV_DONTNEED"):
        return
    row_bytes = part.shape[1] * part.itemsize
    first = part.offset % mmap.ALLOCATIONGRANULARITY + start * row_bytes  # in the mapping
    aligned = first - first % mmap.PAGESIZE
    if stop > start:
        mapping.madvise(mmap.MADV_DONTNEED, aligned, first + (stop - start) * row_bytes - aligned)


def open_part(path: Path, rows: int) -> np.ndarray:
    """A segment's vectors as written to ``path`` (mapped when large)."""
    if not rows or file_size(path) <= MMAP_MIN_BYTES:
        return np.ascontiguousarray(load_npy(path, "vector"))
    return load_npy(path, "vector", mmap_min_bytes=0)


def top_k_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest scores, best first (ties by position): argpartition + sort."""
    n = scores.shape[0]
    if k < n:
        part = np.argpartition(scores, n - k)[n - k :]
        kth = scores[part].min()
        if np.count_nonzero(scores == kth) > np.count_nonzero(scores[part] == kth):
            # Ties straddle the cut: argpartition chose among them arbitrarily; take the first.
            above = np.flatnonzero(scores > kth)
            part = np.concatenate([above, np.flatnonzero(scores == kth)[: k - above.size]])
    else:
        part = np.arange(n)
    order = np.lexsort((part, -scores[part]))
    return part[order]
