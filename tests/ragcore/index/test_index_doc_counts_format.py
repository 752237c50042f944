"""Node counts kept in each document segment (docs.json version 2, index format 4), and the
folders written before them (one node_counts.npy for every document) still loading.

tests/data/index_v3 was written by ragcore at 5c67f52 (index format 3): the animal documents,
then owl notes 1 and 2 in a second commit, then markets.txt deleted and note 3 added in a third
(fake embedder, paragraph splitter, ``_written_like_v3`` below): three node, vector and record
segments and the counts of every document in one file.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data
from ragcore.index.disk.verify import verify_index
from ragcore.types import Document

V3 = Path(__file__).resolve().parents[2] / "data" / "index_v3"


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _owl(i: int) -> Document:
    return Document(text=f"Note {i} about owls.\n\nOwl {i} hunts at night.", doc_id=f"n{i}.txt",
                    metadata={"n": i})


def _written_like_v3() -> VectorStoreIndex:
    """The index tests/data/index_v3 holds, built in memory the same way."""
    index = VectorStoreIndex.from_documents(animal_docs(), embedder=FakeEmbedder(),
                                            splitter=ParagraphSplitter())
    index.insert(_owl(1))
    index.insert(_owl(2))
    index.delete_ref_doc("markets.txt")
    index.insert(_owl(3))
    return index


def _same(a: VectorStoreIndex, b: VectorStoreIndex) -> None:
    assert a.node_ids() == b.node_ids() and a.ref_doc_ids() == b.ref_doc_ids()
    for doc_id in a.ref_doc_ids():
        got, want = a.doc_info(doc_id), b.doc_info(doc_id)
        assert (got.node_ids, got.metadata, got.hash) == (want.node_ids, want.metadata, want.hash)
    assert [n.text for n in a.all_nodes()] == [n.text for n in b.all_nodes()]


def _docs_json(path: Path) -> dict:
    return json.loads((current_data(path) / "docs.json").read_text())


@pytest.fixture
def v3_copy(tmp_path) -> Path:
    path = tmp_path / "index"
    shutil.copytree(V3, path)
    return path


def test_a_format_3_folder_loads_as_written(v3_copy):
    assert json.loads((v3_copy / "manifest.json").read_text())["version"] == 3
    assert "version" not in _docs_json(v3_copy)  # one node_counts.npy for every document
    index = _load(v3_copy)
    _same(index, _written_like_v3())
    assert index.as_retriever(similarity_top_k=1).retrieve("owl 3 hunts")[0].node.ref_doc_id \
        == "n3.txt"
    assert index.stats()["characters"] == _written_like_v3().stats()["characters"]


def test_its_next_commit_writes_the_records_whole_with_counts_then_commits_append(v3_copy):
    index = _load(v3_copy)
    nodes_file = current_data(v3_copy) / "nodes-000001" / "nodes.jsonl"
    inode = os.stat(nodes_file).st_ino
    index.insert(_owl(4))
    index.persist(v3_copy)
    data = current_data(v3_copy)
    assert json.loads((v3_copy / "manifest.json").read_text())["version"] == 4
    docs = _docs_json(v3_copy)
    assert docs["version"] == 2 and docs["doc_segments"] == [{"name": "", "rows": 6}]
    assert np.load(data / "node_counts.npy").tolist() == [2] * 6
    assert os.stat(data / "nodes-000001" / "nodes.jsonl").st_ino == inode  # nodes linked
    expected = _written_like_v3()
    expected.insert(_owl(4))
    _same(_load(v3_copy), expected)
    index.insert(_owl(5))
    index.persist(v3_copy)  # records of the new format: the batch's alone, appended
    data = current_data(v3_copy)
    assert _docs_json(v3_copy)["doc_segments"] == [{"name": "", "rows": 6},
                                                   {"name": "docs-000001", "rows": 1}]
    assert np.load(data / "docs-000001" / "node_counts.npy").tolist() == [2]
    expected.insert(_owl(5))
    _same(_load(v3_copy), expected)
    verify_index(v3_copy)


def test_a_document_whose_node_count_changes_gets_its_record_written_again(tmp_path):
    path = tmp_path / "index"
    index = VectorStoreIndex.from_documents(animal_docs(), embedder=FakeEmbedder(),
                                            splitter=ParagraphSplitter())
    index.persist(path)
    index.delete_nodes(["cats.txt#1"])  # the document stays, with one node
    index.insert(_owl(1))
    index.persist(path)
    again = _load(path)
    assert again.doc_info("cats.txt").node_ids == ["cats.txt#0"]
    _same(again, index)
    verify_index(path)
