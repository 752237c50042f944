"""The query path holds BLAS to one thread (issue 20: default threads stalled on a busy machine)."""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_info

from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple.ann import AnnSettings
from ragcore.stores.query_threads import QUERY_THREADS, query_threads


def _blas_threads(apis: tuple[str, ...] = ("blas",)) -> list[int]:
    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] in apis]


class _Recording(SimpleVectorStore):
    """Records the BLAS thread counts in effect while the store computes its scores."""

    seen: list[list[int]]

    def _scores(self, matrix, query, rows):
        self.seen.append(_blas_threads(("blas", "openmp")))
        return super()._scores(matrix, query, rows)


def _store(rows: int = 50, ann: AnnSettings | None = None) -> _Recording:
    store = _Recording(ann=ann)
    if store._ann is not None:
        store._ann.background = False
    store.seen = []
    vectors = np.random.default_rng(0).standard_normal((rows, 8), dtype=np.float32)
    store.add([f"n{i}" for i in range(rows)], vectors, [{"even": i % 2 == 0} for i in range(rows)])
    return store


def test_a_query_scores_with_blas_held_to_one_thread():
    store = _store()
    store.query(np.ones(8, np.float32), top_k=3)
    store.query(np.ones(8, np.float32), top_k=3, filters={"even": True})
    assert store.seen and all(counts == [QUERY_THREADS] * len(counts) for counts in store.seen)
    assert all(store.seen)  # numpy's BLAS was found, so the check above checked something


def test_the_previous_thread_counts_come_back_after_a_query():
    before = _blas_threads()
    with query_threads(threads=1):
        with query_threads(threads=1):  # nested: the inner exit must not restore yet
            pass
        assert _blas_threads() == [1] * len(before)
    _store().query(np.ones(8, np.float32), top_k=3)
    assert _blas_threads() == before


def test_thread_pools_loaded_after_the_first_query_are_held_too():
    _store().query(np.ones(8, np.float32), top_k=3)  # the pools known so far
    import scipy.linalg  # noqa: F401  (its own OpenBLAS)
    import torch  # noqa: F401  (its own OpenMP)

    store = _store()
    store.query(np.ones(8, np.float32), top_k=3)
    assert store.seen[-1] == [QUERY_THREADS] * len(store.seen[-1])


def test_once_faiss_brought_openmp_its_threads_are_held_too(tmp_path):
    store = _store(400, AnnSettings(min_rows=100))
    store.persist(tmp_path / "store")  # a saved segment over min_rows: faiss is loaded for it
    for _ in range(2):
        store.query(np.ones(8, np.float32), top_k=3)
    assert any(_blas_threads(("openmp",))), "faiss's OpenMP pool was not found"
    assert store.seen[-1] == [QUERY_THREADS] * len(store.seen[-1])
