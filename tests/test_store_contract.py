"""The VectorStore contract: every implementation must pass these (add one to STORES)."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore.errors import ConfigError, StoreError
from ragcore.stores import MetadataFilter, MetadataFilters, SimpleVectorStore, VectorStore

STORES = {
    "simple-cosine": lambda: SimpleVectorStore(metric="cosine"),
    "simple-dot": lambda: SimpleVectorStore(metric="dot"),
    "simple-euclidean": lambda: SimpleVectorStore(metric="euclidean"),
}


@pytest.fixture(params=sorted(STORES))
def make_store(request):
    return STORES[request.param]


def _unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def _filled(make_store) -> VectorStore:
    store = make_store()
    vectors = np.stack([_unit(1, 0, 0), _unit(1, 1, 0), _unit(0, 1, 0), _unit(0, 0, 1)])
    metadata = [
        {"color": "red", "n": 1},
        {"color": "red", "n": 2},
        {"color": "blue", "n": 3},
        {"color": "green", "n": 4},
    ]
    store.add(["a", "b", "c", "d"], vectors, metadata)
    return store


def test_implements_the_protocol(make_store):
    assert isinstance(make_store(), VectorStore)


def test_empty_store_returns_nothing(make_store):
    store = make_store()
    assert len(store) == 0
    assert store.query(_unit(1, 0, 0), top_k=3) == []


def test_query_returns_the_nearest_first(make_store):
    store = _filled(make_store)
    hits = store.query(_unit(1, 0.1, 0), top_k=2)
    assert [node_id for node_id, _ in hits] == ["a", "b"]
    assert hits[0][1] >= hits[1][1]


def test_top_k_larger_than_the_store_returns_everything_sorted(make_store):
    store = _filled(make_store)
    hits = store.query(_unit(0, 0, 1), top_k=10)
    assert len(hits) == 4
    assert hits[0][0] == "d"
    scores = [score for _, score in hits]
    assert scores == sorted(scores, reverse=True)


def test_adding_an_existing_id_replaces_it(make_store):
    store = _filled(make_store)
    store.add(["a"], _unit(0, 0, 1)[None, :], [{"color": "black"}])
    assert len(store) == 4
    assert store.query(_unit(0, 0, 1), top_k=2)[0][0] in {"a", "d"}
    black = MetadataFilters(filters=[MetadataFilter("color", "black")])
    assert [i for i, _ in store.query(_unit(1, 0, 0), top_k=4, filters=black)] == ["a"]


def test_delete_removes_rows_and_ignores_unknown_ids(make_store):
    store = _filled(make_store)
    assert store.delete(["b", "zzz"]) == 1
    assert len(store) == 3
    assert "b" not in [i for i, _ in store.query(_unit(1, 1, 0), top_k=4)]
    assert store.delete(["zzz"]) == 0


def test_filters_restrict_results(make_store):
    store = _filled(make_store)
    red = MetadataFilters(filters=[MetadataFilter("color", "red")])
    assert {i for i, _ in store.query(_unit(0, 0, 1), top_k=4, filters=red)} == {"a", "b"}


def test_node_ids_restrict_results(make_store):
    store = _filled(make_store)
    hits = store.query(_unit(1, 0, 0), top_k=4, node_ids=["c", "d", "unknown"])
    assert {i for i, _ in hits} == {"c", "d"}
    assert store.query(_unit(1, 0, 0), top_k=4, node_ids=[]) == []


def test_mmr_returns_distinct_ids(make_store):
    store = _filled(make_store)
    hits = store.query(_unit(1, 0.2, 0), top_k=3, mode="mmr", mmr_threshold=0.5)
    ids = [i for i, _ in hits]
    assert len(ids) == len(set(ids)) == 3
    assert ids[0] == "a"


def test_wrong_dimension_is_rejected(make_store):
    store = _filled(make_store)
    with pytest.raises(StoreError, match="dimension"):
        store.add(["e"], np.ones((1, 5), dtype=np.float32))
    with pytest.raises(StoreError, match="dimension"):
        store.query(np.ones(5, dtype=np.float32), top_k=1)


def test_bad_query_options_are_rejected(make_store):
    store = _filled(make_store)
    with pytest.raises(ConfigError, match="top_k"):
        store.query(_unit(1, 0, 0), top_k=0)
    with pytest.raises(ConfigError, match="mode"):
        store.query(_unit(1, 0, 0), top_k=1, mode="hybrid")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="mmr_threshold"):
        store.query(_unit(1, 0, 0), top_k=1, mode="mmr", mmr_threshold=1.5)


def test_persist_and_load_round_trip(make_store, tmp_path):
    store = _filled(make_store)
    store.delete(["c"])
    store.persist(tmp_path)
    loaded = type(store).load(tmp_path)
    assert len(loaded) == 3
    query = _unit(1, 0.5, 0.2)
    before, after = store.query(query, top_k=3), loaded.query(query, top_k=3)
    assert [i for i, _ in after] == [i for i, _ in before]
    assert [s for _, s in after] == pytest.approx([s for _, s in before], abs=1e-6)
    red = MetadataFilters(filters=[MetadataFilter("color", "red")])
    assert {i for i, _ in loaded.query(query, top_k=3, filters=red)} == {"a", "b"}
    loaded.add(["e"], _unit(0, 1, 1)[None, :], [{"color": "blue"}])
    assert len(loaded) == 4
