"""How often a segment's IVF index finds what exact search finds, measured on that segment.

``ann`` builds the index; this module checks it against the rows it holds. The settings were
tuned on clustered vectors (recall@10 0.997 at ``nprobe`` 16), but an inverted file's recall
depends on the data: on uniform random vectors the same index finds 2 of the exact top 10. So
when an index is built, ``measure`` searches it with ``SAMPLE`` queries drawn from its own rows
(half the rows themselves, half copies moved by noise of ``NOISE`` x their norm; seeded, so a
segment always gets the same figures), each with its own row left out of the answers, as if it
were a new query from the same data, the way a store query does (``oversample`` x 10
candidates, scored exactly, the best 10 kept) against exact search over the segment, doubling
``nprobe`` from the settings' value until recall@10 reaches ``TARGET``. When that takes more
than ``MAX_SCAN`` of the lists, a query reads about as many rows as exact search does: the
segment is searched exactly instead (``AnnRecall.exact``). The outcome is saved beside the
index as ``ann.json`` (``RECALL_FILE``) and shown by the index stats, the manifest and
``ragcore verify``.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...disk import read_json, write_json
from ...errors import IndexFormatError
from .rows import read_rows

RECALL_FILE = "ann.json"  # a segment's measured recall, beside its ann.faiss
TARGET = 0.98  # recall@10 an index must reach to be searched
MAX_SCAN = 0.5  # share of the lists past which exact search costs about the same
SAMPLE = 200  # queries per measurement
NOISE = 0.5  # a perturbed query's distance from its row, as a share of the row's norm
TOP_K = 10
_BLOCK = 16_384  # rows scored at a time for the exact truth


@dataclass(frozen=True, slots=True)
class AnnRecall:
    """What measuring one segment's index found, and how it is searched because of it."""

    rows: int
    lists: int
    nprobe: int | None  # the lists a query visits; None: the segment is searched exactly
    recall: float  # recall@10 at ``nprobe`` (searched exactly: at the widest nprobe tried)
    tried: int  # the widest nprobe measured
    queries: int
    seconds: float  # what the measurement cost

    @property
    def exact(self) -> bool:
        return self.nprobe is None

    def note(self) -> str:
        """One line for a person: how the segment is searched, and why."""
        if self.exact:
            return (f"searched exactly: the approximate index reached recall@10 "
                    f"{self.recall:.3f} at nprobe {self.tried} of {self.lists} lists, under "
                    f"{TARGET} (past {MAX_SCAN:.0%} of the lists exact search costs as much)")
        return (f"approximate: recall@10 {self.recall:.3f} at nprobe {self.nprobe} of "
                f"{self.lists} lists ({self.queries} sampled queries)")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def measure(index: Any, vectors: np.ndarray, *, start_nprobe: int, oversample: int,
            metric: str) -> AnnRecall:
    """Measure ``index`` (of ``vectors``) and choose its nprobe, or exact search."""
    import faiss

    started = time.perf_counter()
    own, queries = sample_queries(vectors)
    truth = _without(exact_top(vectors, queries, metric, TOP_K + 1), own, TOP_K)
    widest = max(1, math.floor(MAX_SCAN * index.nlist))
    nprobe = min(start_nprobe, widest)
    while True:
        params = faiss.SearchParametersIVF(nprobe=nprobe)
        _, labels = index.search(queries, TOP_K * oversample + 1, params=params)
        recall = _recall(vectors, queries, _without(labels, own, TOP_K * oversample), truth,
                         metric)
        if recall >= TARGET or nprobe >= widest:
            break
        nprobe = min(2 * nprobe, widest)
    return AnnRecall(rows=len(vectors), lists=int(index.nlist),
                     nprobe=nprobe if recall >= TARGET else None, recall=round(recall, 4),
                     tried=nprobe, queries=len(queries),
                     seconds=round(time.perf_counter() - started, 3))


def sample_queries(vectors: np.ndarray, count: int = SAMPLE,
                   seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` rows of ``vectors`` and queries made of them: half the rows as stored, half
    moved by noise."""
    rng = np.random.default_rng(seed)
    chosen = np.sort(rng.choice(len(vectors), min(count, len(vectors)), replace=False))
    queries = np.asarray(vectors[chosen], dtype=np.float32)
    moved = queries[1::2]  # every other one, so both halves span the segment
    noise = rng.standard_normal(moved.shape, dtype=np.float32)
    noise *= NOISE * np.linalg.norm(moved, axis=1, keepdims=True) / np.sqrt(moved.shape[1])
    queries[1::2] = moved + noise
    return chosen, np.ascontiguousarray(queries)


def _without(rows: np.ndarray, own: np.ndarray, k: int) -> np.ndarray:
    """Each line of ``rows`` (best first, or unordered) without its query's own row: ``k``."""
    kept = rows != own[:, None]
    kept[kept.sum(axis=1) > k, -1] = False  # own row absent: drop the last (the worst) instead
    return rows[kept].reshape(len(rows), k)


def exact_top(vectors: np.ndarray, queries: np.ndarray, metric: str,
              k: int = TOP_K) -> np.ndarray:
    """The rows of ``vectors`` exact search ranks best for each query (queries x k, best
    first)."""
    best = np.full((len(queries), k), -np.inf, dtype=np.float32)
    rows = np.zeros((len(queries), k), dtype=np.int64)
    for start in range(0, len(vectors), _BLOCK):
        scores = _scores(read_rows(vectors, start, min(start + _BLOCK, len(vectors))), queries,
                         metric)
        # The block's own best k first, then those against the best so far: small arrays.
        keep = np.argpartition(-scores, min(k, scores.shape[1]) - 1, axis=1)[:, :k]
        scores = np.concatenate([best, np.take_along_axis(scores, keep, 1)], axis=1)
        ids = np.concatenate([rows, keep + start], axis=1)
        keep = np.argpartition(-scores, k - 1, axis=1)[:, :k]
        best, rows = np.take_along_axis(scores, keep, 1), np.take_along_axis(ids, keep, 1)
    return np.take_along_axis(rows, np.argsort(-best, axis=1, kind="stable"), 1)


def _scores(block: np.ndarray, queries: np.ndarray, metric: str) -> np.ndarray:
    """queries x rows, higher better, ranked as the store ranks them."""
    dots = queries @ block.T
    if metric == "euclidean":  # -(|x|^2 - 2xq): the query's norm is common to its row
        return 2 * dots - np.einsum("ij,ij->i", block, block)[None, :]
    return dots


def _recall(vectors: np.ndarray, queries: np.ndarray, labels: np.ndarray,
            truth: np.ndarray, metric: str) -> float:
    """recall@10 of the store's query path: the candidates scored exactly, the best 10 kept."""
    found = 0
    for query, candidates, expected in zip(queries, labels, truth):
        candidates = np.sort(candidates[candidates >= 0])
        scores = _scores(np.asarray(vectors[candidates]), query[None, :], metric)[0]
        best = candidates[np.argsort(-scores, kind="stable")[:TOP_K]]
        found += len(np.intersect1d(best, expected, assume_unique=True))
    return found / (TOP_K * len(queries))


def segment_report(name: str, rows: int, recall: AnnRecall | None, *, built: bool,
                   nprobe: int) -> dict[str, Any]:
    """What the index stats and the manifest say of one big segment (``name``: "" for the
    store folder's own): how it is searched, at what measured recall@10."""
    row: dict[str, Any] = {"segment": name or ".", "rows": rows}
    if recall is not None:
        search = "exact" if recall.exact else "approximate"
        return {**row, "search": search, "recall_at_10": recall.recall, "nprobe": recall.nprobe,
                "lists": recall.lists, "note": recall.note()}
    if not built:
        return {**row, "search": "exact", "recall_at_10": None, "nprobe": None, "lists": None,
                "note": "searched exactly until its index, built in the background after the "
                        "first query, is ready (saved without one by an earlier ragcore)"}
    return {**row, "search": "approximate", "recall_at_10": None, "nprobe": nprobe,
            "lists": None, "note": f"recall unmeasured (index saved by an earlier ragcore): "
                                   f"searched at nprobe {nprobe} until it is measured, in the "
                                   "background after the first query or by `ragcore verify`"}


def write_recall(recall: AnnRecall, folder: Path) -> None:
    """Save ``recall`` beside the segment's index (never through a link to an older one)."""
    (folder / RECALL_FILE).unlink(missing_ok=True)
    write_json(folder / RECALL_FILE, recall.to_json())


def read_recall(folder: Path) -> AnnRecall | None:
    """The recall saved in ``folder``; None for an index saved before it was measured."""
    path = folder / RECALL_FILE
    if not path.exists():
        return None
    data = read_json(path)
    try:
        return AnnRecall(**data)
    except TypeError as exc:
        raise IndexFormatError(f"{path}: not a measured recall ({exc}); the index is damaged: "
                               "run `ragcore verify`, then rebuild it") from exc
