"""Each approximate index is measured on the rows it holds when it is built: nprobe is raised
until recall@10 against exact search reaches 0.98, or the segment is searched exactly and says
so; the recall is in the manifest, the index stats and ``ragcore verify`` (issue 33)."""

from __future__ import annotations

import json
import logging
import os

import numpy as np
import pytest

from ragcore.cli import main
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data
from ragcore.index.disk.verify import verify_index
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple import ann
from ragcore.stores.simple.ann import ANN_FILE, AnnSettings
from ragcore.stores.simple.ann_recall import RECALL_FILE, read_recall, sample_queries
from ragcore.testing.clustered import clustered_vectors
from ragcore.types import Node

ROWS = 20_000
SETTINGS = AnnSettings(min_rows=10_000)  # a 20k-row segment gets an index


def _unit(rows: int, dim: int, seed: int) -> np.ndarray:
    vectors = np.random.default_rng(seed).standard_normal((rows, dim), dtype=np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _saved_and_loaded(vectors: np.ndarray, tmp_path) -> SimpleVectorStore:
    store = SimpleVectorStore(ann=SETTINGS)
    store.add([f"n{i}" for i in range(len(vectors))], vectors)
    store.persist(tmp_path / "store")  # builds and measures the segment's index
    return SimpleVectorStore.load(tmp_path / "store", ann=SETTINGS)


def _recall(store: SimpleVectorStore, vectors: np.ndarray, queries: np.ndarray) -> float:
    exact = SimpleVectorStore(ann=None)
    exact.add(store.ids(), vectors)
    return float(np.mean([len({i for i, _ in store.query(q, top_k=10)}
                              & {i for i, _ in exact.query(q, top_k=10)}) / 10 for q in queries]))


def test_random_vectors_are_searched_exactly_and_the_store_says_why(tmp_path, caplog):
    vectors = _unit(ROWS, 384, seed=1)  # no structure: an inverted file would need most lists
    with caplog.at_level(logging.WARNING, logger="ragcore.stores.simple.ann"):
        store = _saved_and_loaded(vectors, tmp_path)
    assert _recall(store, vectors, _unit(50, 384, seed=2)) >= 0.98  # fresh queries
    assert store._ann.searched == 0  # the IVF index answered none of them
    [segment] = store.approximate_search()
    assert segment["search"] == "exact" and segment["nprobe"] is None
    assert segment["recall_at_10"] < 0.98 and "searched exactly" in segment["note"]
    assert any("searched exactly" in r.getMessage() and r.levelname == "WARNING"
               for r in caplog.records)
    saved = read_recall(tmp_path / "store")
    assert saved.exact and saved.tried == saved.lists // 2 and saved.queries == 200
    assert not (tmp_path / "store" / ANN_FILE).exists()  # no index kept that nothing searches


def test_clustered_vectors_keep_the_index_at_the_settings_nprobe(tmp_path):
    vectors = clustered_vectors(ROWS, 384, clusters=40)
    store = _saved_and_loaded(vectors, tmp_path)
    assert _recall(store, vectors, clustered_vectors(50, 384, clusters=40, draw=1)) >= 0.98
    assert store._ann.searched > 0
    [segment] = store.approximate_search()
    assert segment["search"] == "approximate" and segment["nprobe"] == SETTINGS.nprobe
    assert segment["recall_at_10"] >= 0.98 and segment["lists"] == 283


def test_data_that_needs_more_lists_visited_gets_a_wider_nprobe(tmp_path):
    vectors = _unit(ROWS, 16, seed=3)  # low-dimensional: findable, but not at nprobe 16
    store = _saved_and_loaded(vectors, tmp_path)
    [segment] = store.approximate_search()
    assert segment["search"] == "approximate"
    assert SETTINGS.nprobe < segment["nprobe"] <= segment["lists"] // 2
    assert _recall(store, vectors, _unit(100, 16, seed=4)) >= 0.98  # fresh queries


def test_the_measurement_is_seeded_and_leaves_the_query_row_out():
    vectors = _unit(1000, 16, seed=5)
    own, queries = sample_queries(vectors)
    again_own, again = sample_queries(vectors)
    assert np.array_equal(queries, again) and np.array_equal(own, again_own)
    assert np.allclose(queries[0::2], vectors[own[0::2]])  # rows as stored
    assert not np.allclose(queries[1::2], vectors[own[1::2]])  # rows moved by noise


def _index(vectors: np.ndarray, path) -> VectorStoreIndex:
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=vectors.shape[1]),
                             store=SimpleVectorStore(ann=AnnSettings(min_rows=1000)))
    index.insert_nodes([Node(f"row {i}", node_id=f"n{i}") for i in range(len(vectors))],
                       vectors=vectors)
    index.persist(path)
    return index


def test_the_manifest_stats_and_verify_carry_the_recall(tmp_path, capsys):
    path = tmp_path / "ix"
    index = _index(clustered_vectors(3000, 32, clusters=8, rank=8), path)
    manifest = json.loads((path / "manifest.json").read_text())
    [recorded] = manifest["store"]["approximate_search"]
    assert recorded["search"] == "approximate" and recorded["recall_at_10"] >= 0.98
    assert RECALL_FILE in manifest["files"]  # checksummed like the index it describes
    assert index.stats()["approximate_search"] == [recorded]
    loaded = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=32))
    assert loaded.stats()["approximate_search"] == [recorded]
    assert verify_index(path).approximate_search == [recorded]
    assert main(["verify", str(path)]) == 0
    assert f"approximate: recall@10 {recorded['recall_at_10']:.3f}" in capsys.readouterr().out
    saved = os.stat(current_data(path) / RECALL_FILE).st_ino
    loaded.insert_nodes([Node("one more", node_id="extra")], vectors=np.ones((1, 32)))
    loaded.persist(path)  # the segment kept: its index and recall linked forward
    assert os.stat(current_data(path) / RECALL_FILE).st_ino == saved


def test_verify_says_when_a_segment_is_searched_exactly(tmp_path, capsys):
    path = tmp_path / "ix"
    _index(_unit(3000, 384, seed=6), path)
    [recorded] = json.loads((path / "manifest.json").read_text())["store"]["approximate_search"]
    assert recorded["search"] == "exact" and recorded["nprobe"] is None
    assert main(["verify", str(path)]) == 0
    out = capsys.readouterr().out
    assert "vector segment . (3,000 rows): searched exactly: the approximate index reached" in out


def test_an_index_saved_before_the_measurements_loads_and_is_measured(tmp_path, monkeypatch):
    path = tmp_path / "ix"
    vectors = clustered_vectors(3000, 32, clusters=8, rank=8)
    _index(vectors, path)
    data = current_data(path)
    manifest = json.loads((path / "manifest.json").read_text())
    (data / RECALL_FILE).unlink()  # as an earlier ragcore saved it
    del manifest["files"][RECALL_FILE], manifest["store"]["approximate_search"]
    (path / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setattr(ann, "build_ivf", lambda *a: 1 / 0)  # measured, never rebuilt
    loaded = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=32))
    [segment] = loaded.stats()["approximate_search"]
    assert segment["search"] == "approximate" and segment["recall_at_10"] is None
    assert "unmeasured" in segment["note"] and segment["nprobe"] == 16
    [checked] = verify_index(path).approximate_search  # measures it, reading only
    assert checked["recall_at_10"] >= 0.98 and not (data / RECALL_FILE).exists()
    loaded.store.query(vectors[0], top_k=5)  # the first query measures it in the background
    loaded.store._ann.wait()
    [segment] = loaded.stats()["approximate_search"]
    assert segment["recall_at_10"] == checked["recall_at_10"]
    loaded.insert_nodes([Node("one more", node_id="extra")], vectors=vectors[:1])
    loaded.persist(path)  # the next save keeps the measurement with the segment
    assert read_recall(current_data(path)).recall == checked["recall_at_10"]


def test_a_damaged_recall_file_is_reported(tmp_path):
    from ragcore.errors import IndexFormatError

    (tmp_path / RECALL_FILE).write_text('{"rows": 3}')
    with pytest.raises(IndexFormatError, match="not a measured recall"):
        read_recall(tmp_path)
