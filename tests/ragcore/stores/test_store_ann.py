"""Approximate search in SimpleVectorStore: big saved segments searched by faiss IVF, exact
below the threshold, deletes and filters respected, settings in the index manifest (issue 20)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from ragcore.errors import ConfigError
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple import ann
from ragcore.stores.simple.ann import AnnSettings
from ragcore.stores.registry import open_simple_store
from ragcore.testing.clustered import clustered_vectors

ROWS = 4000
SMALL = AnnSettings(min_rows=1000)  # the threshold lowered so a small index is "big"


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return clustered_vectors(ROWS, 64, clusters=8, rank=16)


@pytest.fixture(scope="module")
def queries() -> np.ndarray:
    return clustered_vectors(40, 64, clusters=8, rank=16, draw=1)


def _store(vectors, tmp_path, settings: AnnSettings | None, metric: str = "cosine"
           ) -> SimpleVectorStore:
    store = SimpleVectorStore(ann=settings, metric=metric)
    if store._ann is not None:
        store._ann.background = False  # built at the first query: these tests search with it
    ids = [f"n{i}" for i in range(len(vectors))]
    store.add(ids, vectors, [{"team": "red" if i % 3 else "blue"} for i in range(len(ids))])
    store.persist(tmp_path / "store")  # saved: a segment, which ANN indexes
    return store


def _recall(store, exact, queries, **options) -> float:
    hits = [len({i for i, _ in store.query(q, top_k=10, **options)}
                & {i for i, _ in exact.query(q, top_k=10, **options)}) / 10 for q in queries]
    return float(np.mean(hits))


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_a_big_saved_segment_is_searched_approximately_with_the_recall_of_exact(
        vectors, queries, tmp_path, metric):
    vectors = vectors * np.linspace(0.5, 2.0, len(vectors), dtype=np.float32)[:, None]
    store = _store(vectors, tmp_path, SMALL, metric)
    exact = SimpleVectorStore(ann=None, metric=metric)
    exact.add(store.ids(), vectors)
    assert _recall(store, exact, queries) >= 0.98
    assert store._ann.indexed_rows() == ROWS  # the IVF index answered, not the exact path
    found = store.query(queries[0], top_k=5)
    scores = dict(exact.query(queries[0], top_k=50))
    assert [s for _, s in found] == pytest.approx([scores[i] for i, _ in found])


def test_deleted_rows_and_filtered_out_rows_never_come_back(vectors, queries, tmp_path):
    store = _store(vectors, tmp_path, SMALL)
    nearest = [i for i, _ in store.query(queries[0], top_k=10)]
    store.delete(nearest[:5])  # rows dead in the saved segment, still in its IVF index
    again = [i for i, _ in store.query(queries[0], top_k=10)]
    assert not set(again) & set(nearest[:5]) and len(again) == 10
    assert store._ann.indexed_rows() == ROWS
    red = store.query(queries[1], top_k=10, filters={"team": "red"})
    assert len(red) == 10 and all(store.metadata(i)["team"] == "red" for i, _ in red)


def test_a_filter_keeping_few_rows_is_searched_exactly(vectors, queries, tmp_path):
    store = _store(vectors, tmp_path, AnnSettings(min_rows=1000, min_kept=0.5))
    exact = SimpleVectorStore(ann=None)
    exact.add(store.ids(), vectors, [{"team": "red" if i % 3 else "blue"} for i in range(ROWS)])
    blue = {"team": "blue"}  # a third of the rows: under min_kept
    for q in queries[:10]:
        found, expected = store.query(q, top_k=10, filters=blue), exact.query(q, top_k=10,
                                                                             filters=blue)
        assert [i for i, _ in found] == [i for i, _ in expected]
    assert store._ann.searched == 0  # never the IVF index


def test_below_the_threshold_and_before_a_save_the_search_is_exact(vectors, queries, tmp_path):
    store = _store(vectors, tmp_path, AnnSettings(min_rows=ROWS + 1))
    store.query(queries[0], top_k=10)
    unsaved = SimpleVectorStore(ann=SMALL)
    unsaved.add([f"n{i}" for i in range(ROWS)], vectors)
    unsaved.query(queries[0], top_k=10)
    assert store._ann.indexed_rows() == 0 and unsaved._ann.indexed_rows() == 0


def test_the_settings_go_into_the_manifest_and_come_back_at_load(vectors, tmp_path):
    settings = AnnSettings(min_rows=1000, nprobe=24)
    store = _store(vectors[:1200], tmp_path, settings)
    spec = store.describe()
    assert spec.settings["ann"]["nprobe"] == 24
    loaded = open_simple_store(tmp_path / "store", spec.settings)
    assert loaded._ann.settings == settings
    assert open_simple_store(tmp_path / "store", {"metric": "cosine", "ann": None})._ann is None
    with pytest.raises(ConfigError, match="nprobe"):
        AnnSettings(nprobe=0)


def test_a_rewritten_segment_gets_a_new_index_and_the_old_one_is_dropped(
        vectors, queries, tmp_path):
    store = _store(vectors, tmp_path, SMALL)
    nearest = [i for i, _ in store.query(queries[0], top_k=10)]
    store.delete(nearest[:10])
    store.persist(tmp_path / "next")  # the segment with deleted rows is written again
    again = [i for i, _ in store.query(queries[0], top_k=10)]
    assert not set(again) & set(nearest)
    assert store._ann.indexed_rows() == ROWS - 10  # only the live segment's index is kept


def test_the_first_query_does_not_wait_for_the_index_it_starts_building(
        vectors, queries, tmp_path, monkeypatch):
    release = threading.Event()
    build = ann.build_ivf

    def slow_build(*args):
        release.wait(timeout=10)  # the build takes seconds on a real index
        return build(*args)

    monkeypatch.setattr(ann, "build_ivf", slow_build)
    saved = SimpleVectorStore(ann=None)  # a segment saved without its index (an older save)
    saved.add([f"n{i}" for i in range(len(vectors))], vectors)
    saved.persist(tmp_path / "store")
    store = SimpleVectorStore.load(tmp_path / "store", ann=SMALL)
    exact = SimpleVectorStore(ann=None)
    exact.add(store.ids(), vectors)
    first = store.query(queries[0], top_k=10)  # searched exactly while the index is built
    assert store._ann.indexed_rows() == 0
    expected = exact.query(queries[0], top_k=10)  # the same products, summed in another order
    assert [i for i, _ in first] == [i for i, _ in expected]
    assert [s for _, s in first] == pytest.approx([s for _, s in expected], abs=1e-6)
    release.set()
    store._ann.wait()
    assert store._ann.indexed_rows() == ROWS
    assert _recall(store, exact, queries) >= 0.98
