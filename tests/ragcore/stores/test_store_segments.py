"""SimpleVectorStore segments: a save links what it keeps, writes only new rows, records deletes
in a bitmap, and merges size-tiered so the segment count stays bounded."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.index import VectorStoreIndex
from ragcore.index.disk import checksums
from ragcore.index.disk.folder import current_data
from ragcore.errors import IndexFormatError
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple import save as simple_save
from ragcore.stores.simple import segments
from ragcore.stores.simple.segments import merges_due, plan_merges
from ragcore.stores.simple.merge import StoreMerge
from ragcore.types import Document


def _rows(n: int, start: int = 0) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(start)
    return [f"n{i}" for i in range(start, start + n)], rng.normal(size=(n, 8)).astype(np.float32)


def _add(store: SimpleVectorStore, n: int, start: int) -> None:
    ids, vectors = _rows(n, start)
    store.add(ids, vectors, [{"i": int(i[1:])} for i in ids], doc_ids=[f"d{start}"] * n)


def _merge(store: SimpleVectorStore, folder, scratch) -> None:
    """What the merger does with the store: plan, write (into ``scratch``), install, commit."""
    merge = StoreMerge.plan(store)
    merge.write(scratch, store._ann)
    assert merge.install(store)
    store.persist(folder)


def _header(folder) -> dict:
    return json.loads((folder / "store.json").read_text())


def test_a_second_save_links_the_first_segment_and_writes_only_new_rows(tmp_path):
    store = SimpleVectorStore(metric="dot")
    _add(store, 20, 0)
    store.persist(tmp_path / "g1")
    _add(store, 5, 100)
    store.persist(tmp_path / "g2")
    first, second = tmp_path / "g1" / "vectors.npy", tmp_path / "g2" / "vectors.npy"
    assert os.stat(first).st_ino == os.stat(second).st_ino  # linked, not written again
    assert _header(tmp_path / "g2")["segments"] == [
        {"name": "", "rows": 20}, {"name": "vectors-000001", "rows": 5}]
    loaded = SimpleVectorStore.load(tmp_path / "g2")
    assert loaded.ids() == store.ids() and np.array_equal(loaded.vectors(), store.vectors())
    assert loaded.metadata("n102") == {"i": 102} and loaded.doc_ids()[-1] == "d100"


def test_deleted_rows_are_rewritten_away_at_the_next_save(tmp_path):
    store = SimpleVectorStore(metric="dot")
    _add(store, 10, 0)
    store.persist(tmp_path / "g1")
    _add(store, 10, 10)
    store.persist(tmp_path / "g2")
    store.delete(["n3"])
    store.persist(tmp_path / "g3")  # the index promises a deleted document leaves the disk
    header = _header(tmp_path / "g3")
    assert header["deleted"] == 0 and [s["rows"] for s in header["segments"]] == [9, 10]
    assert b'"n3"' not in (tmp_path / "g3" / "vectors-000002" / "vector_ids.json").read_bytes()
    assert os.path.samefile(tmp_path / "g2" / "vectors-000001" / "vectors.npy",
                            tmp_path / "g3" / "vectors-000001" / "vectors.npy")
    assert SimpleVectorStore.load(tmp_path / "g3").ids() == store.ids()


def test_with_a_threshold_deletes_are_a_bitmap_until_most_rows_are_gone(tmp_path, monkeypatch):
    monkeypatch.setattr(segments, "EXPUNGE", 0.5)
    store = SimpleVectorStore(metric="dot")
    _add(store, 10, 0)
    _add(store, 10, 10)
    store.persist(tmp_path / "g1")
    _add(store, 10, 20)
    store.persist(tmp_path / "g2")
    store.delete(["n1", "n25"])
    assert store._metadata.values is None  # a delete parses nothing
    store.persist(tmp_path / "g3")
    assert _header(tmp_path / "g3")["deleted"] == 2
    loaded = SimpleVectorStore.load(tmp_path / "g3")
    assert loaded.ids() == store.ids() and "n1" not in loaded and len(loaded) == 28
    assert loaded.query(store.get_vectors(["n24"])[0], top_k=1)[0][0] == "n24"
    assert loaded.delete_ref_doc("d20") == 9
    loaded.persist(tmp_path / "g4")  # the second segment has no live row left: dropped
    header = _header(tmp_path / "g4")
    assert header["deleted"] == 1 and [s["rows"] for s in header["segments"]] == [20]
    assert SimpleVectorStore.load(tmp_path / "g4").ids() == loaded.ids()


def test_size_tiered_merges_keep_the_segment_count_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(segments, "FACTOR", 3)
    store = SimpleVectorStore(metric="dot")
    for save in range(40):
        _add(store, 2, 2 * save)
        store.persist(tmp_path / f"g{save}")  # a commit: its batch, no merge
        if store.merges_due():  # what the merger runs after it
            _merge(store, tmp_path / f"g{save}", tmp_path / f"merge{save}")
        assert not store.merges_due()
        names = [s["name"] for s in _header(tmp_path / f"g{save}")["segments"]]
        assert len(names) <= 2 * 3 and len(set(names)) == len(names)
    loaded = SimpleVectorStore.load(tmp_path / "g39")
    assert loaded.ids() == [f"n{i}" for i in range(80)]
    assert np.array_equal(loaded.get_vectors(["n79"]), store.get_vectors(["n79"]))


@pytest.mark.parametrize(
    "live, rows, runs",
    [
        ([2000] * 9, [2000] * 9, []),
        ([2000] * 10, [2000] * 10, [(0, 10)]),
        ([200_000] + [20_000] * 9 + [2000] * 10, [200_000] + [20_000] * 9 + [2000] * 10,
         [(1, 20)]),  # ten of tier 3 make one of tier 4, which makes ten of tier 4
        ([5000, 999, 2000], [5000, 1000, 2000], [(1, 2)]),  # a deleted row
    ],
)
def test_plan_merges(live, rows, runs):
    assert plan_merges(live, rows) == runs
    assert plan_merges(live, rows, tiers=False) == [r for r in runs if r[1] - r[0] == 1]
    assert merges_due(live, rows) == any(b - a > 1 for a, b in runs)


def test_a_commit_writes_its_batch_and_merges_nothing_even_when_a_tier_is_due(tmp_path,
                                                                              monkeypatch):
    monkeypatch.setattr(segments, "FACTOR", 3)
    store = SimpleVectorStore(metric="dot")
    for save in range(3):
        _add(store, 2, 2 * save)
        store.persist(tmp_path / "g")
    assert store.merges_due()
    kept = os.stat(tmp_path / "g" / "vectors.npy").st_ino
    _add(store, 2, 6)
    store.persist(tmp_path / "g")  # the tier is due: still only the batch is written
    assert [s["rows"] for s in _header(tmp_path / "g")["segments"]] == [2, 2, 2, 2]
    assert os.stat(tmp_path / "g" / "vectors.npy").st_ino == kept
    _merge(store, tmp_path / "m", tmp_path / "merge")
    assert [s["rows"] for s in _header(tmp_path / "m")["segments"]] == [8]
    assert not store.merges_due()
    assert SimpleVectorStore.load(tmp_path / "m").ids() == [f"n{i}" for i in range(8)]


def test_an_index_commit_links_the_vectors_it_keeps_with_their_checksums(tmp_path, monkeypatch):
    path = tmp_path / "index"
    index = VectorStoreIndex.from_documents(animal_docs()[:2], embedder=_embedder(),
                                            splitter=ParagraphSplitter())
    index.persist(path)
    before = current_data(path)
    inode = os.stat(before / "vectors.npy").st_ino
    files = json.loads((path / "manifest.json").read_text())["files"]
    read, synced = [], []
    record, fsync = checksums.record_file, os.fsync
    monkeypatch.setattr(checksums, "record_file", lambda p: read.append(p.name) or record(p))
    monkeypatch.setattr(os, "fsync", lambda fd: synced.append(os.fstat(fd).st_ino) or fsync(fd))
    index.insert(animal_docs()[2])
    index.persist(path)
    after = current_data(path)
    assert after != before and not before.exists()  # the old generation was collected
    assert os.stat(after / "vectors.npy").st_ino == inode  # linked, not written again
    assert "vectors.npy" in read and read.count("vectors.npy") == 1  # only the new segment's
    assert inode not in synced and os.stat(after / "docs.json").st_ino in synced  # durable
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["files"]["vectors.npy"] == files["vectors.npy"]  # carried over
    assert "vectors-000001/vectors.npy" in manifest["files"]
    assert "vectors-000001/vector_ids.json" in manifest["ids"]
    index.delete_nodes(["no such node"])
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    index.persist(path)  # links from the generation before, the first one long gone
    assert os.stat(current_data(path) / "vectors.npy").st_ino == inode
    reloaded = VectorStoreIndex.load(path, embedder=_embedder(), splitter=ParagraphSplitter())
    assert sorted(reloaded.node_ids()) == sorted(index.node_ids())


def test_a_version_2_store_folder_loads_and_its_next_save_links_it(tmp_path):
    store = SimpleVectorStore(metric="dot")
    _add(store, 6, 0)
    store.persist(tmp_path / "old")
    header = _header(tmp_path / "old")
    for key in ("segments", "deleted"):
        del header[key]
    (tmp_path / "old" / "store.json").write_text(json.dumps({**header, "version": 2}))
    loaded = SimpleVectorStore.load(tmp_path / "old")
    _add(loaded, 2, 50)
    loaded.persist(tmp_path / "new")
    assert _header(tmp_path / "new")["version"] == 3
    assert os.path.samefile(tmp_path / "old" / "vectors.npy", tmp_path / "new" / "vectors.npy")
    assert SimpleVectorStore.load(tmp_path / "new").ids() == loaded.ids()


def _embedder():
    from ragcore.embeddings import FakeEmbedder

    return FakeEmbedder()


def test_a_segment_that_cannot_be_linked_fails_the_save_and_leaves_the_index(
    tmp_path, monkeypatch
):
    path = tmp_path / "index"
    index = VectorStoreIndex.from_documents(animal_docs()[:2], embedder=_embedder(),
                                            splitter=ParagraphSplitter())
    index.persist(path)
    manifest = (path / "manifest.json").read_bytes()
    monkeypatch.setattr(simple_save, "link_segment", lambda segment, folder: False)
    index.insert(animal_docs()[2])
    with pytest.raises(IndexFormatError, match="changed while the index was being saved"):
        index.persist(path)
    assert (path / "manifest.json").read_bytes() == manifest
    assert len(VectorStoreIndex.load(path, embedder=_embedder())) == 4
