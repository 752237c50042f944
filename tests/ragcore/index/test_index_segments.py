"""The index folder in segments: a commit links the node and vector segments it keeps, writes
only what was added (and what deletes and merges rewrite), and loads back the same index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import IndexFormatError
from ragcore.index import VectorStoreIndex
from ragcore.index.disk import checksums
from ragcore.index.disk.folder import current_data
from ragcore.index.disk.verify import verify_index
from ragcore.stores.simple import segments
from ragcore.types import Document


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _doc(i: int) -> Document:
    return Document(text=f"Note {i} about owls.\n\nOwl {i} hunts at night.", doc_id=f"n{i}.txt")


def _segments(path: Path) -> list[dict]:
    return json.loads((current_data(path) / "docs.json").read_text())["segments"]


def _same_index(a: VectorStoreIndex, b: VectorStoreIndex) -> None:
    assert a.node_ids() == b.node_ids() and a.ref_doc_ids() == b.ref_doc_ids()
    assert [n.text for n in a.all_nodes()] == [n.text for n in b.all_nodes()]


@pytest.fixture
def index_path(tmp_path):
    path = tmp_path / "index"
    index = VectorStoreIndex.from_documents(animal_docs(), embedder=FakeEmbedder(),
                                            splitter=ParagraphSplitter())
    index.persist(path)
    return path


def test_a_commit_links_the_node_records_it_keeps_and_writes_the_new_ones(index_path):
    index = _load(index_path)
    inode = os.stat(current_data(index_path) / "nodes.jsonl").st_ino
    index.insert(_doc(1))
    index.persist(index_path)
    data = current_data(index_path)
    assert os.stat(data / "nodes.jsonl").st_ino == inode  # linked, not copied
    assert _segments(index_path) == [{"name": "", "rows": 6}, {"name": "nodes-000001", "rows": 2}]
    assert b"Owl 1 hunts" in (data / "nodes-000001" / "nodes.jsonl").read_bytes()
    manifest = json.loads((index_path / "manifest.json").read_text())
    assert {"nodes-000001/node_ids.json", "node_ids.json"} <= set(manifest["ids"])
    _same_index(_load(index_path), index)
    assert _load(index_path).as_retriever(similarity_top_k=1).retrieve("owl hunts")[0].node.text \
        == "Owl 1 hunts at night."


def test_a_deleted_document_leaves_the_disk_and_the_other_segments_stay_linked(index_path):
    index = _load(index_path)
    index.insert(_doc(1))
    index.persist(index_path)
    inode = os.stat(current_data(index_path) / "nodes-000001" / "nodes.jsonl").st_ino
    index.delete_ref_doc("markets.txt")
    index.persist(index_path)
    data = current_data(index_path)
    on_disk = b"".join(p.read_bytes() for p in data.rglob("*") if p.is_file())
    assert b"stock market" not in on_disk and b"markets.txt" not in on_disk
    assert os.stat(data / "nodes-000001" / "nodes.jsonl").st_ino == inode
    assert _segments(index_path) == [  # the first, rewritten without the document, in place
        {"name": "nodes-000002", "rows": 4}, {"name": "nodes-000001", "rows": 2}]
    _same_index(_load(index_path), index)


def test_many_commits_merge_size_tiered_and_keep_the_index(tmp_path, monkeypatch):
    monkeypatch.setattr(segments, "FACTOR", 3)
    path = tmp_path / "index"
    index = VectorStoreIndex(embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    for i in range(30):
        index.insert(_doc(i))
        if i % 7 == 3:
            index.delete_ref_doc(f"n{i - 2}.txt")
        index.persist(path)
        index.merge_segments(path)  # what an ingestion's merger runs after its commits
        assert len(_segments(path)) <= 2 * 3
    _same_index(_load(path), index)
    again = _load(path)
    again.insert(_doc(99))
    again.persist(path)
    _same_index(_load(path), again)


def _as_before_segments(data: Path) -> None:
    """Turn a fresh generation into what ragcore wrote before segments: docs.json holds the
    documents' columns, node ids in node_ids.json order, no runs."""
    docs = json.loads((data / "doc_records.json").read_text())
    docs["node_counts"] = np.load(data / "node_counts.npy").tolist()
    docs["loose"] = 0
    (data / "docs.json").write_text(json.dumps(docs))
    for name in ("node_runs.npy", "doc_runs.npy", "node_counts.npy", "doc_records.json"):
        (data / name).unlink()


def test_a_folder_saved_before_segments_loads_and_its_next_commit_links_it(index_path,
                                                                         monkeypatch):
    data = current_data(index_path)
    _as_before_segments(data)
    manifest = json.loads((index_path / "manifest.json").read_text())
    names = [n for n in checksums.tree_files(data) if n != "reading.lock"]
    manifest["files"] = checksums.record_files(data, names)
    (index_path / "manifest.json").write_text(json.dumps(manifest))
    index = _load(index_path)
    assert len(index) == 6
    inode = os.stat(data / "nodes.jsonl").st_ino
    index.insert(_doc(1))
    index.persist(index_path)
    assert os.stat(current_data(index_path) / "nodes.jsonl").st_ino == inode
    assert (current_data(index_path) / "doc_records.json").exists()  # records written anew
    _same_index(_load(index_path), index)
    assert _load(index_path).doc_info("cats.txt").metadata["topic"] == "pets"
    monkeypatch.setattr(segments, "FACTOR", 2)
    assert index.merge_segments(index_path)  # the segment of the old format is merged too
    assert _segments(index_path) == [{"name": "nodes-000002", "rows": 8}]
    _same_index(_load(index_path), index)
    verify_index(index_path)


def test_a_commit_writes_only_the_records_of_documents_added_or_changed(index_path):
    index = _load(index_path)
    records = current_data(index_path) / "doc_records.json"
    inode = os.stat(records).st_ino
    index.insert(_doc(1))
    index.persist(index_path)
    data = current_data(index_path)
    assert os.stat(data / "doc_records.json").st_ino == inode  # linked
    added = json.loads((data / "docs-000001" / "doc_records.json").read_text())
    assert added["doc_ids"] == ["n1.txt"]
    index.set_document_info(Document(text="x" * 5, doc_id="n1.txt", metadata={"v": 2}))
    index.persist(index_path)
    data = current_data(index_path)
    assert os.stat(data / "doc_records.json").st_ino == inode  # the others' stay linked
    again = _load(index_path)
    assert again.doc_info("n1.txt").metadata == {"v": 2} and again.doc_info("n1.txt").hash
    assert again.doc_info("rust.md").metadata["topic"] == "programming"
    _same_index(again, index)


def test_ids_swapped_in_a_later_segment_are_caught(index_path):
    index = _load(index_path)
    index.insert(_doc(1))
    index.persist(index_path)
    ids_path = current_data(index_path) / "nodes-000001" / "node_ids.json"
    ids = json.loads(ids_path.read_text())
    ids_path.write_text(json.dumps(ids[::-1]))
    manifest = json.loads((index_path / "manifest.json").read_text())
    manifest["files"]["nodes-000001/node_ids.json"] = checksums.record_file(ids_path)
    (index_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match=r"nodes-000001/node_ids\.json: the ids, in order"):
        _load(index_path)


def test_a_bad_record_of_a_file_in_a_segment_folder_names_the_index_manifest(index_path):
    index = _load(index_path)
    index.insert(_doc(1))
    index.persist(index_path)
    manifest = json.loads((index_path / "manifest.json").read_text())
    manifest["files"]["nodes-000001/nodes.jsonl"] = {"bytes": 5}
    (index_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexFormatError, match=rf"^{index_path / 'manifest.json'}: the record "
                       r"of nodes-000001/nodes\.jsonl is not a size"):
        _load(index_path)
