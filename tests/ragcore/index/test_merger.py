"""Segment merges out of the commit: a commit writes its batch only, the merger (after it, in a
thread of the writing process) runs the size-tiered merges, as a generation of its own."""

from __future__ import annotations

import json

import pytest
from support.store_fakes import ParagraphSplitter

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data
from ragcore.index.disk import merger
from ragcore.index.disk.commit import merge_waiting
from ragcore.index.disk.merger import BackgroundMerger, merges_due
from ragcore.index.disk.verify import verify_index
from ragcore.stores.simple import segments
from ragcore.types import Document


def _doc(i: int) -> Document:
    return Document(text=f"document {i} about owls\n\nits second part {i}", doc_id=f"d{i}")


def _new() -> VectorStoreIndex:
    return VectorStoreIndex(embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _load(path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _counts(path) -> tuple[int, int, int]:
    """Segments of node records, document records and vectors in the current generation."""
    data = current_data(path)
    docs = json.loads((data / "docs.json").read_text())
    store = json.loads((data / "store.json").read_text())
    return len(docs["segments"]), len(docs["doc_segments"]), len(store["segments"])


def _same(a: VectorStoreIndex, b: VectorStoreIndex) -> None:
    assert a.node_ids() == b.node_ids() and a.ref_doc_ids() == b.ref_doc_ids()
    assert [n.text for n in a.all_nodes()] == [n.text for n in b.all_nodes()]
    assert (a.get_vectors(a.node_ids()) == b.get_vectors(b.node_ids())).all()


@pytest.fixture
def factor3(monkeypatch):
    monkeypatch.setattr(segments, "FACTOR", 3)


def test_a_commit_never_merges_and_the_merge_is_a_generation_of_its_own(tmp_path, factor3):
    path = tmp_path / "index"
    index = _new()
    for i in range(4):  # a tier is due after the third commit: the fourth still merges nothing
        index.insert(_doc(i))
        index.persist(path)
        assert _counts(path) == (i + 1, i + 1, i + 1)
    assert merges_due(index)
    revision, generation = index.revision, current_data(path).name
    assert index.merge_segments(path)
    assert _counts(path) == (1, 1, 1) and current_data(path).name != generation
    assert index.revision == revision  # the same content: caches elsewhere need not reload
    verify_index(path)
    _same(_load(path), index)
    manifest = (path / "manifest.json").read_bytes()
    assert not index.merge_segments(path)  # nothing due: nothing written
    assert (path / "manifest.json").read_bytes() == manifest


def test_an_ingestion_runs_the_due_merges_after_its_commits(tmp_path, factor3, monkeypatch):
    from ragcore.workspace import Workspace
    from ragcore.workspace.ingest import commits
    from ragcore.workspace.ingest.commits import Batching

    monkeypatch.setattr(commits, "SAVE_SHARE", 0)  # a commit after every file

    files = []
    for i in range(12):
        files.append(tmp_path / f"f{i}.txt")
        files[-1].write_text(f"file {i} about bats\n\nand a second paragraph {i}")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    report = ws.ingest("docs", files, batching=Batching(chunks=1, seconds=0, slice=1))
    path = ws.index_path("docs")
    assert report.commits >= 10
    assert max(_counts(path)) <= 2 * 3  # merged as it went: bounded, not one per commit
    index = _load(path)
    assert not merges_due(index) and len(index.ref_doc_ids()) == 12
    verify_index(path)


def test_the_background_merger_runs_one_merge_at_a_time_and_keeps_its_failure(tmp_path,
                                                                              factor3,
                                                                              monkeypatch):
    path = tmp_path / "index"
    index = _new()
    merger = BackgroundMerger(index, path)
    for i in range(3):
        index.insert(_doc(i))
        index.persist(path)
        merger.start()
    merger.wait()
    assert merger.merges == 1 and _counts(path) == (1, 1, 1) and merger.error is None
    for i in range(3, 6):
        index.insert(_doc(i))
        index.persist(path)
    monkeypatch.setattr("ragcore.index.disk.merger.commit_index",
                        lambda *a, **k: (_ for _ in ()).throw(OSError("disk full")))
    merger.start()
    merger.wait()
    assert isinstance(merger.error, OSError) and _counts(path) == (4, 4, 4)
    _same(_load(path), index)


def _two_per_commit(path, commits: int) -> VectorStoreIndex:
    index = _new()
    for c in range(commits):
        index.refresh_ref_docs([_doc(2 * c), _doc(2 * c + 1)])
        index.persist(path)
    return index


def _during_write(monkeypatch, action) -> None:
    """Run ``action`` while the merger writes (no lock held then: as another thread would)."""
    real = merger.write_merge

    def write(plan, folder, index):
        action(index)
        real(plan, folder, index)
        assert [p.name for p in folder.parent.glob("merge-*")] == [folder.name]

    monkeypatch.setattr(merger, "write_merge", write)


def _deleted_rows(path) -> int:
    return json.loads((current_data(path) / "store.json").read_text())["deleted"]


def test_a_delete_and_a_commit_during_a_merge_stay_and_its_rows_are_marked_dead(
        tmp_path, factor3, monkeypatch):
    monkeypatch.setattr(segments, "EXPUNGE", 0.6)  # half a segment deleted: a bitmap
    path = tmp_path / "index"
    index = _two_per_commit(path, 3)
    index.delete_ref_doc("d0")  # before the merge: its rows are not merged, the rest move up
    index.persist(path)
    assert _deleted_rows(path) == 2

    def delete_and_commit(index):
        index.delete_ref_doc("d3")
        index.insert(_doc(7))
        index.persist(path)

    _during_write(monkeypatch, delete_and_commit)
    assert index.merge_segments(path)
    assert _counts(path) == (2, 2, 2)  # the merged segment, then the batch's
    assert _deleted_rows(path) == 2  # d3's rows, dead in the merged segment
    loaded = _load(path)
    assert sorted(loaded.ref_doc_ids()) == ["d1", "d2", "d4", "d5", "d7"]
    assert all(n.ref_doc_id not in ("d0", "d3") for n in loaded.all_nodes())
    _same(loaded, index)
    assert [h.node.ref_doc_id for h in loaded.keyword_search("document 4 owls", top_k=1)] == ["d4"]
    verify_index(path)
    assert not list(path.glob("merge-*"))


def test_a_segment_rewritten_during_a_merge_drops_that_merge(tmp_path, factor3, monkeypatch):
    path = tmp_path / "index"  # EXPUNGE 0: the delete's commit rewrites d2's segment
    index = _two_per_commit(path, 3)

    def delete_and_commit(index):
        index.delete_ref_doc("d2")  # the first rows of the segment: its rows move up
        index.persist(path)

    _during_write(monkeypatch, delete_and_commit)
    index.merge_segments(path)
    assert _counts(path) == (3, 3, 3) and _deleted_rows(path) == 0  # not merged, nothing lost
    assert not list(path.glob("merge-*"))
    _same(_load(path), index)
    monkeypatch.undo()
    monkeypatch.setattr(segments, "FACTOR", 3)
    assert index.merge_segments(path)  # planned again, from the segments as they are now
    assert _counts(path) == (1, 1, 1)
    _same(_load(path), index)
    verify_index(path)


def test_a_merge_written_while_changes_wait_is_installed_by_the_next_commit(
        tmp_path, factor3, monkeypatch):
    path = tmp_path / "index"
    index = _two_per_commit(path, 3)
    _during_write(monkeypatch, lambda index: index.insert(_doc(8)))
    manifest = (path / "manifest.json").read_bytes()
    assert index.merge_segments(path)
    assert (path / "manifest.json").read_bytes() == manifest  # not the merger's to publish
    assert merge_waiting(index) and not merges_due(index)
    assert len(list(path.glob("merge-*"))) == 1  # held until the commit
    index.persist(path)
    assert _counts(path) == (2, 2, 2) and not merge_waiting(index)
    assert not list(path.glob("merge-*"))
    _same(_load(path), index)
    verify_index(path)


def test_a_merger_folder_left_by_a_dead_process_is_removed_at_the_next_open(tmp_path):
    path = tmp_path / "index"
    _two_per_commit(path, 1)
    stray = path / "merge-0123456789ab"
    (stray / "nodes-000001").mkdir(parents=True)
    (stray / "nodes-000001" / "nodes.jsonl").write_text("{}\n")
    (stray / "reading.lock").touch()
    _load(path)
    assert not stray.exists()


def test_when_the_install_commit_fails_the_next_commit_writes_the_index_whole(
        tmp_path, factor3, monkeypatch):
    from ragcore.index.disk import folder

    path = tmp_path / "index"
    index = _two_per_commit(path, 3)
    manifest = (path / "manifest.json").read_bytes()
    real = folder.Commit.publish
    monkeypatch.setattr(folder.Commit, "publish", lambda *a: (_ for _ in ()).throw(OSError("full")))
    with pytest.raises(OSError, match="full"):
        index.merge_segments(path)
    assert (path / "manifest.json").read_bytes() == manifest
    assert not list(path.glob("merge-*"))  # its folder is gone: never linked from now on
    _same(_load(path), index)
    monkeypatch.setattr(folder.Commit, "publish", real)
    index.insert(_doc(9))
    index.persist(path)
    assert _counts(path) == (1, 1, 1)  # every row written again, as one segment
    _same(_load(path), index)
    verify_index(path)
