"""The vectors of a ``SimpleVectorStore``: rows on disk plus rows added since, one matrix to read.

``MatrixRows`` keeps a read-only *base* (the rows of the ``vectors.npy`` last loaded or written,
memory-mapped when the file is large) and a growable in-memory *tail* of the rows added since.
Writing the next ``vectors.npy`` copies the base's bytes from its file inside the kernel
(``disk.copy_range``) and appends the tail, then ``rebase`` maps the new file: so an ingestion
that saves every batch holds only the batch's vectors in memory, however big the index grows,
and a save costs no page of the old file in this process. Deleting rows materialises the
survivors in memory (a delete is rare next to searches; the next save maps them again).

Scores are computed part by part and concatenated: a query never copies the matrix.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ..disk import copy_range, load_npy

MMAP_MIN_BYTES = 64 * 1024 * 1024  # memory-map a vectors file above this size


class MatrixRows:
    """Rows ``0..len`` of a float32 matrix: a mapped base, then an in-memory tail."""

    def __init__(self) -> None:
        self._base: np.ndarray | None = None  # read-only; a memmap of its file when large
        self._source: int | None = None  # descriptor of the base's file, for kernel copies
        self._tail: np.ndarray | None = None  # (capacity, dim), rows 0.._tail_size in use
        self._tail_size = 0

    def __len__(self) -> int:
        return (0 if self._base is None else len(self._base)) + self._tail_size

    def __del__(self) -> None:
        self._close()

    @property
    def dim(self) -> int | None:
        part = self._base if self._base is not None else self._tail
        return None if part is None else int(part.shape[1])

    def parts(self) -> list[np.ndarray]:
        """The non-empty parts in row order (views, nothing copied)."""
        parts = [] if self._base is None or not len(self._base) else [self._base]
        if self._tail is not None and self._tail_size:
            parts.append(self._tail[: self._tail_size])
        return parts

    def array(self) -> np.ndarray:
        """All rows as one array: a view when they are in one part, else a copy."""
        parts = self.parts()
        if not parts:
            return np.zeros((0, self.dim or 0), dtype=np.float32)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def take(self, rows: np.ndarray) -> np.ndarray:
        """The rows at ``rows`` (positions into all rows), copied, in that order."""
        rows = np.asarray(rows, dtype=np.intp)
        parts = self.parts()
        if len(parts) <= 1:
            return parts[0][rows] if parts else np.zeros((0, self.dim or 0), np.float32)
        split = len(parts[0])
        out = np.empty((rows.size, parts[0].shape[1]), dtype=np.float32)
        low = rows < split
        out[low] = parts[0][rows[low]]
        out[~low] = parts[1][rows[~low] - split]
        return out

    def dot(self, query: np.ndarray) -> np.ndarray:
        """``matrix @ query`` over all rows, one part at a time."""
        parts = self.parts()
        if len(parts) == 1:
            return parts[0] @ query
        return np.concatenate([p @ query for p in parts]) if parts else np.zeros(0, np.float32)

    def square_norms(self) -> np.ndarray:
        parts = self.parts()
        return np.concatenate([np.einsum("ij,ij->i", p, p) for p in parts]) if parts else \
            np.zeros(0, np.float32)

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
        """Keep the rows where ``mask`` is true, in order (all in memory afterwards)."""
        kept = self.array()[mask]
        self._close()
        self._base, self._tail, self._tail_size = None, kept, len(kept)

    # -- disk --------------------------------------------------------------------------------

    def write(self, path: Path) -> None:
        """Write every row to ``path`` as a .npy file; the base's bytes never enter memory."""
        dim = self.dim or 0
        header = {"descr": "<f4", "fortran_order": False, "shape": (len(self), dim)}
        with open(path, "wb") as out:
            np.lib.format.write_array_header_1_0(out, header)
            base = self._base
            if base is not None and len(base):
                if self._source is not None and isinstance(base, np.memmap):
                    copy_range(self._source, base.offset, base.nbytes, out)
                else:
                    out.write(np.ascontiguousarray(base).data)
            if self._tail is not None and self._tail_size:
                out.write(np.ascontiguousarray(self._tail[: self._tail_size]).data)

    def rebase(self, path: Path) -> None:
        """Hold the rows as the file just written to ``path`` (mapped when it is large)."""
        if not len(self) or path.stat().st_size <= MMAP_MIN_BYTES:
            return  # small: the rows stay in memory as they are
        mapped = load_npy(path, "vector", mmap_min_bytes=0)
        self.adopt(mapped, path)

    def adopt(self, matrix: np.ndarray, path: Path | None) -> None:
        """Take ``matrix`` (loaded from ``path``) as all the rows."""
        self._close()
        self._tail, self._tail_size = None, 0
        self._base = matrix
        if isinstance(matrix, np.memmap) and path is not None:
            self._source = os.open(path, os.O_RDONLY)

    def _close(self) -> None:
        if self._source is not None:
            os.close(self._source)
            self._source = None

