"""Approximate search for a ``SimpleVectorStore``'s big saved segments: one faiss IVF index each.

Exact search reads every row, so its cost grows with the index (17 ms at 100k rows, 169 ms at
1M). Above ``AnnSettings.min_rows`` live rows, a saved segment (never changed once written:
``segments``) gets an inverted-file index (faiss ``IndexIVFScalarQuantizer``, 8 bits a
dimension: a quarter of the vectors' memory) with ``lists`` = ``lists_per_sqrt`` x sqrt(rows)
k-means lists; a query visits the ``nprobe`` nearest lists and returns ``oversample`` x top-k
candidates per segment. The candidates of every segment, plus the exact top-k of the small
segments and of the rows not saved yet, go back to the store, which scores them exactly: the
scores a caller sees are the exact ones, only the choice of rows is approximate. How
approximate depends on the rows, so every index is measured on its own segment when it is built
(``ann_recall``): ``nprobe`` is raised from the settings' value until recall@10 reaches 0.98,
and a segment that would need more than half its lists is searched exactly (a warning is
logged). Why faiss and IVF rather than HNSW: the table in ``docs/scale.md`` (IVF builds about
4x faster for the same recall, which matters because it is built lazily).

Deleted rows and metadata filters are applied inside the IVF search (a bitmap of the allowed
rows of that segment); a filter that keeps under ``min_kept`` of a segment's rows is searched
exactly there, since an inverted file's few visited lists may hold none of them.

An index is built when the save that writes a segment of ``min_rows`` rows or more (a big
batch) writes it, under the writer lock, or by the merger writing a merged segment (outside the
lock: ``write_index``, adopted at its install), and saved beside the segment's vectors as
``ann.faiss`` with its measured recall in ``ann.json`` (``save_index``: before the manifest
that publishes the generation, checksummed like the segment's other files, linked forward with
it; a segment searched exactly has only the latter); a load maps it (``adopt``), so no
query waits for a build (its cost, paid by the save: about the k-means training on
``40 x lists`` sampled rows plus one pass over the segment, 6-8 s at 100k rows). A big segment
without one (written by an earlier ragcore) gets its index built in a background thread the
first time a query needs it, searched exactly until it is ready, and saved with the segment at
the next save (``carry``). The settings are in the store's ``describe()``, so the index
manifest records them (``nprobe``, ``lists_per_sqrt``, ``min_rows``) and a loaded index
searches as the one that was saved; each file holds its own list count, each ``ann.json`` its
nprobe. An ``ann.faiss`` saved before the measurements (no ``ann.json``) still loads: it is
measured in a background thread after the first query (searched at the settings' ``nprobe``
meanwhile, reported unmeasured), or by ``ragcore verify`` (``measure_saved``), and the next save
keeps the measurement with it.
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

from ...errors import ConfigError, IndexFormatError
from .ann_recall import RECALL_FILE, AnnRecall, measure, read_recall, segment_report, write_recall
from .rows import MatrixRows, read_rows

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
    nprobe: int = 16  # lists visited per query, at least (``ann_recall`` may raise it)
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
        # id(part) -> (part, index, recall); index None: measured, searched exactly; recall
        # None: an index saved before ragcore measured them, searched at ``settings.nprobe``
        self._indexes: dict[int, tuple[np.ndarray, Any, AnnRecall | None]] = {}
        self._building: dict[int, threading.Thread] = {}
        self._lock = threading.Lock()
        self.searched = 0  # segment searches answered by an index (the rest were exact)

    def wait(self) -> None:
        """Block until the indexes being built in the background are ready."""
        for thread in list(self._building.values()):
            thread.join()

    def indexed_rows(self) -> int:
        """Rows (dead ones included) of the segments searched with an index now."""
        return sum(len(part) for part, index, _ in self._indexes.values() if index is not None)

    def report(self, matrix: MatrixRows, names: list[str], *,
               measure: bool = False) -> list[dict[str, Any]]:
        """How each big saved segment (``names``, in order) is searched and why, for the index
        stats and the manifest; ``measure``: measure indexes saved unmeasured first."""
        found = []
        for (part, live), name in zip(matrix.views(), names):
            if (len(part) if live is None else len(live)) < self.settings.min_rows:
                continue
            if measure:
                self.measure_saved(part)
            entry = self._indexes.get(id(part))
            found.append(segment_report(name, len(part), None if entry is None else entry[2],
                                        built=entry is not None, nprobe=self.settings.nprobe))
        return found

    def save_index(self, part: np.ndarray, folder: Path) -> None:
        """A segment of ``part``'s rows was just written in ``folder``: if it is big, build its
        index now and save it there (``ANN_FILE``) for every later load."""
        if self.write_index(part, folder):
            # The saved file, memory-mapped, not the index just built: its codes (~400 bytes
            # a row) would stay in this process's memory for as long as the segment lives.
            self.adopt(part, folder)

    def write_index(self, part: np.ndarray, folder: Path) -> bool:
        """Build, measure and save ``part``'s index in ``folder`` if it is big (the merger's,
        outside the lock: ``adopt`` it once the segment is installed); whether it did. A
        segment it cannot search well enough gets only its recall (``ann.json``): exact."""
        if len(part) < self.settings.min_rows:
            return False
        index, recall = self._settle(part, None)
        if index is not None:
            _write_index(index, folder / ANN_FILE)
        write_recall(recall, folder)
        return True

    def adopt(self, part: np.ndarray, folder: Path) -> None:
        """Use the index saved with a loaded segment (``folder``), if it has one."""
        if len(part) < self.settings.min_rows:
            return
        recall = read_recall(folder)
        if recall is not None and recall.exact:
            index = None
        elif (folder / ANN_FILE).exists():
            index = read_index(folder / ANN_FILE, len(part))
        else:  # saved without one: built in the background when a query needs it
            return
        with self._lock:
            self._indexes[id(part)] = (part, index, recall)

    def carry(self, part: np.ndarray, source: Path, target: Path) -> None:
        """A kept segment was linked from ``source`` into ``target``: its saved index too, or
        the index built since its load, saved now."""
        ready = self._indexes.get(id(part))
        for name in (ANN_FILE, RECALL_FILE):
            if (source / name).exists():
                _link(source / name, target / name)
            elif ready is not None and name == ANN_FILE and ready[1] is not None:
                _write_index(ready[1], target / ANN_FILE)
            elif ready is not None and name == RECALL_FILE and ready[2] is not None:
                write_recall(ready[2], target)

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
        found = self._index(part) if is_big and kept >= self.settings.min_kept * size else None
        if found is not None:
            index, nprobe = found
            local = self._approximate(index, nprobe, part, live, allowed, query,
                                      top_k * self.settings.oversample)
            return local if live is None else np.searchsorted(live, local)
        return self._exact(part, live, allowed, query, top_k)

    def _approximate(self, index, nprobe, part, live, allowed, query, k) -> np.ndarray:
        import faiss

        self.searched += 1
        params = faiss.SearchParametersIVF(nprobe=nprobe)
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

    def _index(self, part: np.ndarray) -> tuple[Any, int] | None:
        """The segment's index and nprobe; None when it is searched exactly (measured so, or
        while its index is built in the background: the first query after a load must not
        wait seconds for it). An index saved unmeasured is measured in the background too,
        and searched at the settings' nprobe meanwhile."""
        key = id(part)
        with self._lock:
            entry = self._indexes.get(key)
            if (entry is None or entry[2] is None) and not self.background:
                entry = self._indexes[key] = (part, *self._settle(part, entry))
            elif (entry is None or entry[2] is None) and key not in self._building:
                thread = threading.Thread(target=self._build, args=(part, entry), daemon=True,
                                          name="ragcore-ann-build")
                self._building[key] = thread
                thread.start()
        if entry is None or entry[1] is None:
            return None
        recall = entry[2]
        return entry[1], self.settings.nprobe if recall is None else recall.nprobe

    def _build(self, part: np.ndarray, entry: tuple | None) -> None:
        try:
            index, recall = self._settle(part, entry)
        except Exception:  # noqa: BLE001  (the search goes on as it was; the reason is logged)
            logger.exception("approximate index of a %d-row segment not built", len(part))
            return
        with self._lock:
            if self._building.pop(id(part), None) is not None:  # not forgotten meanwhile
                self._indexes[id(part)] = (part, index, recall)

    def measure_saved(self, part: np.ndarray) -> None:
        """Measure now, in this thread, the index ``part`` was saved with unmeasured."""
        entry = self._indexes.get(id(part))
        if entry is not None and entry[2] is None:
            settled = self._settle(part, entry)
            with self._lock:
                self._indexes[id(part)] = (part, *settled)

    def _settle(self, part: np.ndarray, entry: tuple | None) -> tuple[Any | None, AnnRecall]:
        """``part``'s index (the saved one in ``entry``, else a new one) and its measured
        recall; no index when it falls short of the target."""
        index = build_ivf(part, self.settings, self._metric) if entry is None else entry[1]
        recall = measure(index, part, start_nprobe=self.settings.nprobe,
                         oversample=self.settings.oversample, metric=self._metric)
        if recall.exact:
            logger.warning("a %d-row segment is %s", len(part), recall.note())
            return None, recall
        logger.info("a %d-row segment's index: %s", len(part), recall.note())
        return index, recall

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
    from ..query_threads import refresh_libraries

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


def _link(source: Path, target: Path) -> None:
    if not target.exists():
        try:
            os.link(source, target)
        except OSError:  # another device, or a file system without hard links
            shutil.copyfile(source, target)


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
