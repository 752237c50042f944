"""A database-backed store and the index folder apart after a crash: detected at load (logged,
orphan rows hidden, nothing deleted by a reader) and repaired at the next persist."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Node

pytest.importorskip("chromadb", reason="needs chromadb: pip install '.[chroma]'")

from ragcore.stores.chroma import ChromaVectorStore  # noqa: E402
from ragcore.stores.postgres.pgvector import PGVectorStore  # noqa: E402

DIM = 8


def _vectors(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, DIM)).astype(np.float32)


@pytest.fixture(params=["chroma", "postgres"])
def make_store(request, tmp_path):
    if request.param == "chroma":
        return lambda: ChromaVectorStore(path=tmp_path / "chroma", collection="crash_case")
    url = request.getfixturevalue("postgres_url")
    name = f"crash_case_{abs(hash(str(tmp_path))) % 10**9}"
    return lambda: PGVectorStore(url, table=name)


def test_a_crash_between_store_and_folder_is_reported_then_repaired(make_store, tmp_path,
                                                                    caplog):
    folder = tmp_path / "index"
    index = VectorStoreIndex(store=make_store(), embedder=FakeEmbedder(dim=DIM))
    nodes = [Node(text=f"node {i}", node_id=f"n{i}", ref_doc_id=f"d{i % 3}") for i in range(9)]
    vectors = _vectors(9, 0)
    index.insert_nodes(nodes, vectors=vectors)
    index.persist(folder)

    # A process dies after changing the database but before saving the folder: an ingest that
    # added two rows, and a delete that removed node n4's row.
    crashed = make_store()
    crashed.add(["ghost1", "ghost2"], vectors[:2] * 1.01, doc_ids=["d9", "d9"])
    crashed.delete(["n4"])

    with caplog.at_level(logging.WARNING, logger="ragcore.stores.consistency"):
        loaded = VectorStoreIndex.load(folder, embedder=FakeEmbedder(dim=DIM))
    text = caplog.text
    assert "2 rows no node of the index names" in text and "'ghost1'" in text
    assert "1 node of the index without a row" in text and "'n4'" in text
    assert len(loaded.store) == 10  # a reader deletes nothing: a writer may be at work
    hits = loaded.search(vectors[0], top_k=9)
    assert "ghost1" not in {h.node.node_id for h in hits} and hits[0].node.node_id == "n0"

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ragcore.stores.consistency"):
        loaded.persist(folder)
    assert "deleted 2 orphan rows" in caplog.text and "dropped 1 node " in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="ragcore.stores.consistency"):
        again = VectorStoreIndex.load(folder, embedder=FakeEmbedder(dim=DIM))
    assert caplog.text == ""
    assert len(again) == len(again.store) == 8 and "n4" not in again


def test_a_reader_ignores_rows_a_writer_added_after_it_loaded(make_store, tmp_path):
    folder = tmp_path / "index"
    writer = VectorStoreIndex(store=make_store(), embedder=FakeEmbedder(dim=DIM))
    vectors = _vectors(4, 1)
    writer.insert_nodes([Node(text=f"node {i}", node_id=f"n{i}") for i in range(2)],
                        vectors=vectors[:2])
    writer.persist(folder)
    reader = VectorStoreIndex.load(folder, embedder=FakeEmbedder(dim=DIM))
    # the writer goes on (its rows are in the database at once, its folder changes later)
    writer.insert_nodes([Node(text=f"node {i}", node_id=f"n{i}") for i in range(2, 4)],
                        vectors=vectors[2:])
    hits = reader.search(vectors[3], top_k=4)
    assert {h.node.node_id for h in hits} == {"n0", "n1"}
