"""A big segment's approximate index is built by the save that writes the segment, saved beside
it (ann.faiss), linked forward with it, mapped at load (no build), checksummed (issue 20)."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import IndexFormatError
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data
from ragcore.index.disk.verify import verify_index
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple import ann
from ragcore.stores.simple import segments
from ragcore.stores.simple.ann import ANN_FILE, AnnSettings
from ragcore.testing.clustered import clustered_vectors
from ragcore.types import Node

ROWS, DIM = 3000, 32
SMALL = AnnSettings(min_rows=1000)


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return clustered_vectors(ROWS, DIM, clusters=8, rank=8)


@pytest.fixture(scope="module")
def queries() -> np.ndarray:
    return clustered_vectors(30, DIM, clusters=8, rank=8, draw=1)


def _no_build(*args):
    raise AssertionError("an approximate index was built")


def _add(index: VectorStoreIndex, vectors: np.ndarray, first: int = 0) -> None:
    nodes = [Node(f"row {i}", node_id=f"n{i}") for i in range(first, first + len(vectors))]
    index.insert_nodes(nodes, vectors=vectors)


def _build(path, vectors) -> VectorStoreIndex:
    store = SimpleVectorStore(ann=SMALL)
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM), store=store)
    _add(index, vectors)
    index.persist(path)
    return index


def _load(path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM))


def _recall(store, exact, queries) -> float:
    return float(np.mean([len({i for i, _ in store.query(q, top_k=10)}
                              & {i for i, _ in exact.query(q, top_k=10)}) / 10 for q in queries]))


def test_the_save_builds_and_saves_the_index_and_a_load_maps_it(vectors, queries, tmp_path,
                                                                monkeypatch):
    path = tmp_path / "ix"
    _build(path, vectors)
    data = current_data(path)
    assert (data / ANN_FILE).exists()
    manifest = json.loads((path / "manifest.json").read_text())
    assert ANN_FILE in manifest["files"]  # checksummed with the segment's other files
    assert manifest["store"]["settings"]["ann"]["nprobe"] == SMALL.nprobe
    monkeypatch.setattr(ann, "build_ivf", _no_build)
    loaded = _load(path)
    assert loaded.store._ann.indexed_rows() == ROWS  # ready at load: nothing in the background
    exact = SimpleVectorStore(ann=None)
    exact.add(loaded.store.ids(), vectors)
    assert _recall(loaded.store, exact, queries) >= 0.98
    assert loaded.store._ann.searched > 0


def test_a_kept_segment_links_its_index_and_a_merge_writes_a_new_one(vectors, tmp_path,
                                                                     monkeypatch):
    path = tmp_path / "ix"
    index = _build(path, vectors[:2000])
    inode = os.stat(current_data(path) / ANN_FILE).st_ino
    _add(index, vectors[2000:2100], 2000)  # a small batch: its own segment
    index.persist(path)
    data = current_data(path)
    assert os.stat(data / ANN_FILE).st_ino == inode  # linked forward, not rebuilt
    assert not list(data.glob(f"vectors-*/{ANN_FILE}"))  # the small segment has none
    monkeypatch.setattr(segments, "FACTOR", 2)  # the next merge takes everything
    _add(index, vectors[2100:], 2100)
    index.persist(path)
    assert len(list(current_data(path).rglob(ANN_FILE))) == 1  # a commit builds nothing
    assert index.merge_segments(path)
    merged = [p for p in current_data(path).rglob(ANN_FILE)]
    assert len(merged) == 1 and os.stat(merged[0]).st_ino != inode
    index.store.query(vectors[0], top_k=3)  # a query lets go of the merged segments' indexes
    assert index.store._ann.indexed_rows() == ROWS


def test_a_segment_saved_without_an_index_gets_it_at_the_next_save(vectors, tmp_path):
    path = tmp_path / "ix"
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM), store=SimpleVectorStore(ann=None))
    _add(index, vectors)
    index.persist(path)  # as an earlier ragcore saved it: no ann.faiss
    store = SimpleVectorStore.load(current_data(path), ann=SMALL)
    store._ann.background = False
    store.query(vectors[0], top_k=5)  # builds it (in the foreground here)
    store.add(["extra"], vectors[:1])
    store.persist(tmp_path / "next")
    assert (tmp_path / "next" / ANN_FILE).exists()
    again = SimpleVectorStore.load(tmp_path / "next", ann=SMALL)
    assert again._ann.indexed_rows() == ROWS


def test_a_damaged_index_file_is_reported(vectors, tmp_path):
    path = tmp_path / "ix"
    _build(path, vectors)
    target = current_data(path) / ANN_FILE
    with pytest.raises(IndexFormatError, match="indexes 3000 rows but its segment holds 5"):
        ann.read_index(target, 5)
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(IndexFormatError, match=ANN_FILE):
        verify_index(path)
    target.write_bytes(b"not faiss")
    with pytest.raises(IndexFormatError, match="not a readable faiss index"):
        ann.read_index(target, ROWS)


def test_a_save_that_dies_building_the_index_publishes_nothing(vectors, tmp_path, monkeypatch):
    path = tmp_path / "ix"
    index = _build(path, vectors[:1500])
    manifest = (path / "manifest.json").read_bytes()
    monkeypatch.setattr(segments, "FACTOR", 2)
    _add(index, vectors[1500:], 1500)
    monkeypatch.setattr(ann, "build_ivf", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        index.persist(path)  # a big batch gets its index in its commit
    assert (path / "manifest.json").read_bytes() == manifest
    assert len(_load(path)) == 1500
    monkeypatch.undo()
    monkeypatch.setattr(segments, "FACTOR", 2)
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM))
    _add(index, vectors[1500:], 1500)
    index.persist(path)
    manifest = (path / "manifest.json").read_bytes()
    monkeypatch.setattr(ann, "build_ivf", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        index.merge_segments(path)  # the merge that dies building its index
    assert (path / "manifest.json").read_bytes() == manifest
    assert len(_load(path)) == ROWS


def test_a_mapped_segment_is_read_in_blocks_as_it_is(tmp_path, monkeypatch):
    from ragcore.stores.simple.rows import open_part

    rows = clustered_vectors(9000, DIM, clusters=8, rank=8)  # 1.15 MB: mapped when opened
    np.save(tmp_path / "vectors.npy", rows)
    mapped = open_part(tmp_path / "vectors.npy", len(rows))
    assert isinstance(mapped, np.memmap)
    monkeypatch.setattr(ann, "_ADD_ROWS", 4000)
    blocks = list(ann._blocks(mapped))
    assert [start for start, _ in blocks] == [0, 4000, 8000]
    assert np.array_equal(np.concatenate([b for _, b in blocks]), rows)
