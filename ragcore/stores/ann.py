"""Approximate search for a ``SimpleVectorStore``'s big saved segments: one faiss IVF index each.

Exact search reads every row, so its cost grows with the index (17 ms at 100k rows, 169 ms at
1M). Above ``AnnSettings.min_rows`` live rows, a saved segment (never changed once written:
``segments``) gets an inverted-file index (faiss ``IndexIVFScalarQuantizer``, 8 bits a
dimension: a quarter of the vectors' memory) with ``lists`` = ``lists_per_sqrt`` x sqrt(rows)
k-means lists; a query visits the ``nprobe`` nearest lists and returns ``oversample`` x top-k
candidates per segment. The candidates of every segment, plus the exact top-k of the small
segments and of the rows not saved yet, go back to the store, which scores them exactly: the
scores a caller sees are the exact ones, only the choice of rows is approximate (recall@10
against exact search is in ``docs/scale.md``). Why faiss and IVF rather than HNSW: the table
there (IVF builds about 4x faster for the same recall, which matters because it is built lazily).

Deleted rows and metadata filters are applied inside the IVF search (a bitmap of the allowed
rows of that segment); a filter that keeps under ``min_kept`` of a segment's rows is searched
exactly there, since an inverted file's few visited lists may hold none of them.

An index is built when the save that writes a segment of ``min_rows`` rows or more (a big
batch) writes it, under the writer lock, or by the merger writing a merged segment (outside the
lock: ``write_index``, adopted at its install), and saved beside the segment's vectors as
``ann.faiss`` (``save_index``: before the manifest that publishes the generation, checksummed
like the segment's other files, linked forward with it); a load maps it (``adopt``), so no
query waits for a build (its cost, paid by the save: about the k-means training on
``40 x lists`` sampled rows plus one pass over the segment, 6-8 s at 100k rows). A big segment
without one (written by an earlier ragcore) gets its index built in a background thread the
first time a query needs it, searched exactly until it is ready, and saved with the segment at
the next save (``carry``). The settings are in the store's ``describe()``, so the index
manifest records them (``nprobe``, ``lists_per_sqrt``, ``min_rows``) and a loaded index
searches as the one that was saved; each file holds its own list count.
"""

from __future__ import annotations

import logging
import math
import os
import shutil
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConfigError, IndexFormatError
from .matrix_rows import MatrixRows, read_rows

logger = logging.getLogger(__name__)

_TRAIN_PER_LIST = 40  # sampled rows per k-means list (faiss warns under 39)
_TRAIN_ITERATIONS = 10
ANN_FILE = "ann.faiss"  # a segment's saved index, in its folder
_ADD_ROWS = 8192  # rows added to an index at a time


@dataclass(frozen=True, slots=True)
class AnnSettings:
    """When a segment is searched approximately, and how widely."""

    min_rows: int = 50_000  # live rows below which a segment is searched exactly
    lists_per_sqrt: float = 2.0  # k-means lists = this x sqrt(segment rows)
    nprobe: int = 16  # lists visited per query
    oversample: int = 4  # candidates per segment = this x top_k, scored exactly after
    min_kept: float = 0.2  # a filter keeping a smaller share of a segment: exact there

    def __post_init__(self) -> None:
        for name in ("min_rows", "nprobe", "oversample"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"ann {name} ({value!r}) must be a positive integer")
        if not self.lists_per_sqrt > 0:
            raise ConfigError(f"ann lists_per_sqrt ({self.lists_per_sqrt!r}) must be above 0")
        if not 0 <= self.min_kept <= 1:
            raise ConfigError(f"ann min_kept ({self.min_kept!r}) must be between 0 and 1")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AnnSettings:
        unknown = sorted(set(data) - set(cls.__dataclass_fields__))
        if unknown:
            raise ConfigError(f"unknown ann settings {unknown}: this ragcore knows "
                              f"{sorted(cls.__dataclass_fields__)}; upgrade ragcore")
        return cls(**data)


class AnnSearch:
    """Candidate rows for a store query: IVF over big saved segments, exact elsewhere."""

    def __init__(self, settings: AnnSettings, metric: str, *, background: bool = True) -> None:
        self.settings = settings
        self.background = background  # build indexes in a thread, searching exactly meanwhile
        self._metric = metric
        self._indexes: dict[int, tuple[np.ndarray, Any]] = {}  # id(part) -> (part, index)
        self._building: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()
        self.searched = 0  # segment searches answered by an index (the rest were exact)

    def wait(self) -> None:
        """Block until the indexes being built in the background are ready."""
        for thread in list(self._building.values()):
            thread.join()

    def indexed_rows(self) -> int:
        """Rows (dead ones included) of the segments that have an index now."""
        return sum(len(part) for part, _ in self._indexes.values())

    def save_index(self, part: np.ndarray, folder: Path) -> None:
        """A segment of ``part``'s rows was just written in ``folder``: if it is big, build its
        index now and save it there (``ANN_FILE``) for every later load."""
        if self.write_index(part, folder):
            # The saved file, memory-mapped, not the index just built: its codes (~400 bytes
            # a row) would stay in this process's memory for as long as the segment lives.
            self.adopt(part, folder)

    def write_index(self, part: np.ndarray, folder: Path) -> bool:
        """Build and save ``part``'s index in ``folder`` if it is big (the merger's, outside
        the lock: ``adopt`` it once the segment is installed); whether it did."""
        if len(part) < self.settings.min_rows:
            return False
        _write_index(build_ivf(part, self.settings, self._metric), folder / ANN_FILE)
        return True

    def adopt(self, part: np.ndarray, folder: Path) -> None:
        """Use the index saved with a loaded segment (``folder``), if it has one."""
        if (folder / ANN_FILE).exists() and len(part) >= self.settings.min_rows:
            with self._lock:
                self._indexes[id(part)] = (part, read_index(folder / ANN_FILE, len(part)))

    def carry(self, part: np.ndarray, source: Path, target: Path) -> None:
        """A kept segment was linked from ``source`` into ``target``: its saved index too, or
        the index built since its load, saved now."""
        if (source / ANN_FILE).exists():
            if not (target / ANN_FILE).exists():
                try:
                    os.link(source / ANN_FILE, target / ANN_FILE)
                except OSError:  # another device, or a file system without hard links
                    shutil.copyfile(source / ANN_FILE, target / ANN_FILE)
            return
        ready = self._indexes.get(id(part))
        if ready is not None:
            _write_index(ready[1], target / ANN_FILE)

    def candidates(self, matrix: MatrixRows, query: np.ndarray, *, top_k: int,
                   rows: np.ndarray | None) -> np.ndarray | None:
        """The logical rows to score exactly (sorted): among ``rows`` (those a filter allows;
        None: all), or ``rows`` itself when no segment is big enough for an index."""
        views = matrix.views()
        saved = len(views) - (1 if matrix.tail_size else 0)
        sizes = [len(p) if live is None else len(live) for p, live in views]
        big = [i < saved and n >= self.settings.min_rows for i, n in enumerate(sizes)]
        self._forget([id(p) for (p, _), b in zip(views, big) if b])
        if not any(big):
            return rows
        found, start = [], 0
        for (part, live), size, is_big in zip(views, sizes, big):
            allowed = None if rows is None else _inside(rows, start, start + size) - start
            if allowed is None or allowed.size:
                found.append(start + self._segment(part, live, allowed, is_big, query, top_k))
            start += size
        return _sorted_unique(np.concatenate(found)) if found else np.zeros(0, np.intp)

    def _segment(self, part: np.ndarray, live: np.ndarray | None, allowed: np.ndarray | None,
                 is_big: bool, query: np.ndarray, top_k: int) -> np.ndarray:
        """The segment's candidates as positions among its live rows."""
        size = len(part) if live is None else len(live)
        kept = size if allowed is None else allowed.size
        index = self._index(part) if is_big and kept >= self.settings.min_kept * size else None
        if index is not None:
            local = self._approximate(index, part, live, allowed, query,
                                      top_k * self.settings.oversample)
            return local if live is None else np.searchsorted(live, local)
        return self._exact(part, live, allowed, query, top_k)

    def _approximate(self, index, part, live, allowed, query, k) -> np.ndarray:
        import faiss

        self.searched += 1
        params = faiss.SearchParametersIVF(nprobe=self.settings.nprobe)
        if live is not None or allowed is not None:
            mask = np.zeros(len(part), dtype=bool)
            chosen = live if live is not None else np.arange(len(part))
            mask[chosen if allowed is None else chosen[allowed]] = True
            bits = np.packbits(mask, bitorder="little")
            selector = faiss.IDSelectorBitmap(len(part), faiss.swig_ptr(bits))  # bits: kept alive
            params.sel = selector
        _, labels = index.search(np.ascontiguousarray(query[None, :]), k, params=params)
        labels = labels[0]
        return labels[labels >= 0]

    def _exact(self, part, live, allowed, query, k) -> np.ndarray:
        scores = part @ query
        if self._metric == "euclidean":  # rank by -(|x|^2 - 2xq): the query's norm is common
            scores = 2 * scores - np.einsum("ij,ij->i", part, part)
        if live is not None:
            scores = scores[live]
        positions = np.arange(len(scores)) if allowed is None else allowed
        if allowed is not None:
            scores = scores[allowed]
        if k >= scores.size:
            return positions
        return positions[np.argpartition(-scores, k)[:k]]

    def _index(self, part: np.ndarray) -> Any | None:
        """The segment's index; None while it is being built in the background (the first
        query after a load must not wait seconds for it: the segment is searched exactly)."""
        key = id(part)
        with self._lock:
            if key in self._indexes:
                return self._indexes[key][1]
            if not self.background:
                self._indexes[key] = (part, build_ivf(part, self.settings, self._metric))
                return self._indexes[key][1]
            if key not in self._building:
                thread = threading.Thread(target=self._build, args=(part,), daemon=True,
                                          name="ragcore-ann-build")
                self._building[key] = thread
                thread.start()
        return None

    def _build(self, part: np.ndarray) -> None:
        try:
            index = build_ivf(part, self.settings, self._metric)
        except Exception:  # noqa: BLE001  (exact search goes on; the reason is logged)
            logger.exception("approximate index of a %d-row segment not built", len(part))
            return
        with self._lock:
            if self._building.pop(id(part), None) is not None:  # not forgotten meanwhile
                self._indexes[id(part)] = (part, index)

    def _forget(self, keep: list[int]) -> None:
        with self._lock:
            for store in (self._indexes, self._building):
                for key in [k for k in store if k not in keep]:
                    del store[key]


def build_ivf(vectors: np.ndarray, settings: AnnSettings, metric: str) -> Any:
    """A trained faiss IVF-SQ8 index holding ``vectors`` (labels = row numbers)."""
    try:
        import faiss
    except ImportError as exc:
        raise ConfigError("approximate search needs faiss: pip install faiss-cpu") from exc
    from .query_threads import refresh_libraries

    refresh_libraries()  # faiss brought OpenMP: let query_threads limit it too
    dim = vectors.shape[1]
    lists = max(1, min(len(vectors) // _TRAIN_PER_LIST,
                       round(settings.lists_per_sqrt * math.sqrt(len(vectors)))))
    kind = faiss.METRIC_L2 if metric == "euclidean" else faiss.METRIC_INNER_PRODUCT
    quantizer = faiss.IndexFlatL2(dim) if metric == "euclidean" else faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFScalarQuantizer(quantizer, dim, lists, faiss.ScalarQuantizer.QT_8bit,
                                          kind)
    index.cp.niter = _TRAIN_ITERATIONS
    from threadpoolctl import threadpool_limits

    # A build is arithmetic, not bandwidth: every core, even inside a query's one-thread limit.
    with threadpool_limits(limits=os.cpu_count() or 1, user_api="openmp"):
        _train_and_add(index, vectors, lists * _TRAIN_PER_LIST)
    return index


def _write_index(index: Any, path: Path) -> None:
    import faiss

    path.unlink(missing_ok=True)  # never write through a link to an earlier generation's file
    faiss.write_index(index, str(path))


def read_index(path: Path, rows: int) -> Any:
    """A saved segment index, memory-mapped; IndexFormatError if it is not one of ``rows``."""
    import faiss

    fix = "the index is damaged: run `ragcore verify`, then rebuild it from its documents"
    try:
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
    except RuntimeError as exc:
        reason = (str(exc).splitlines() or ["?"])[0]
        raise IndexFormatError(f"{path}: not a readable faiss index ({reason}); {fix}") from exc
    if index.ntotal != rows:
        raise IndexFormatError(f"{path}: indexes {index.ntotal} rows but its segment holds "
                               f"{rows}; {fix}")
    return index


def _train_and_add(index: Any, vectors: np.ndarray, sample_size: int) -> None:
    sample = np.sort(np.random.default_rng(0).choice(len(vectors), min(len(vectors),
                                                                       sample_size),
                                                     replace=False))
    index.train(np.concatenate([block[_inside(sample, start, start + len(block)) - start]
                                for start, block in _blocks(vectors)]))
    for _, block in _blocks(vectors):
        index.add(block)


def _blocks(vectors: np.ndarray):
    """``vectors`` a block of ``_ADD_ROWS`` rows at a time, contiguous. A memory-mapped file is
    read, not touched through its mapping: a merge builds inside an ingestion, whose memory
    would otherwise keep every row of the new segment resident; and a block's distances to
    every list (rows x lists floats) stay small."""
    for start in range(0, len(vectors), _ADD_ROWS):
        yield start, read_rows(vectors, start, min(start + _ADD_ROWS, len(vectors)))


def _sorted_unique(rows: np.ndarray) -> np.ndarray:
    """``np.unique(rows)`` without its first call importing ``numpy.ma`` (0.1 s, paid by the
    first query after a load)."""
    rows = np.sort(rows)
    return rows[np.concatenate(([True], rows[1:] != rows[:-1]))] if rows.size else rows


def _inside(rows: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The entries of sorted ``rows`` in ``start..stop-1``."""
    return rows[np.searchsorted(rows, start) : np.searchsorted(rows, stop)]
