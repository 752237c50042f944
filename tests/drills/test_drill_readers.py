"""A reader keeps what it loaded while a writer commits and removes old generations.

``benchmarks/index/drill_readers.py`` does the work (``python -m benchmarks.index.drill_readers
--minutes 10`` is the long version): a writer process commits 300 small batches while two reader processes
load the index, check it is one commit's whole state, wait a moment and search it by keyword
and hybrid queries. Before readers mapped each segment's keyword postings at load, the first
keyword query after the writer removed the loaded generation failed (36 queries in this test)
or rebuilt the postings from the node records.

The index lives on tmpfs where there is one (``/dev/shm``): fsync is then nearly free, so 300
commits take seconds, and unlinking, renaming and mapping behave as on a disk.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from benchmarks.index import drill_readers
from ragcore.chunking.sentence import SentenceSplitter
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple.ann import ANN_FILE, AnnSettings
from ragcore.types import Document

PERSISTS = int(os.environ.get("RAGCORE_DRILL_PERSISTS", "300"))


@pytest.fixture
def folder(tmp_path):
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    with tempfile.TemporaryDirectory(prefix="ragcore-drill-", dir=shm) as tmp:
        yield Path(tmp)


@pytest.mark.slow
def test_readers_keep_their_generation_while_a_writer_commits_and_cleans_up(folder):
    counts = drill_readers.run(folder / "index", persists=PERSISTS)
    errors = counts.pop("errors")
    assert counts["persists"] == PERSISTS
    assert counts["loads"] >= 20 and counts["queries"] >= 40, counts
    assert (counts["failed_loads"], counts["failed_queries"], counts["mixed"]) == (0, 0, 0), errors
    assert counts["rebuilt_postings"] == 0  # no reader found its postings gone
    # Old generations went away: one is left once no reader holds another, and the folder is
    # about the size of the same index written once.
    assert counts["generations_after_load"] == 1
    assert counts["bytes_after_load"] <= 1.5 * counts["bytes_fresh"], counts


def _open(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=32),
                                 splitter=SentenceSplitter(chunk_size=64, chunk_overlap=8))


def _answers(index: VectorStoreIndex) -> list:
    """What a reader asks of a loaded index, as plain values: nodes, documents, vectors,
    approximate, filtered, keyword and hybrid searches."""
    query = FakeEmbedder(dim=32).embed_batch(["note 7 river"])[0]
    ids = index.node_ids()
    return [
        [(n.node_id, n.text) for n in index.all_nodes()],
        [index.doc_info(d).metadata for d in index.ref_doc_ids()],
        index.get_vectors(ids).round(6).tolist(),
        [h.node.node_id for h in index.search(query, top_k=10)],
        [h.node.node_id for h in index.search(query, top_k=5, filters={"group": 2})],
        [(h.node.node_id, round(h.score, 5)) for h in index.keyword_search("river 7", top_k=8)],
        [h.node.node_id for h in index.as_retriever(mode="hybrid").retrieve("note 7 river")],
    ]


def test_a_loaded_index_reads_nothing_by_name_once_its_generation_is_removed(tmp_path, caplog,
                                                                            monkeypatch):
    from ragcore.stores.simple import ann_recall

    # The fake embedder's 350 distinct texts are no data an approximate index can search well:
    # its self-measurement would choose exact search, and this test needs an ANN file to lose.
    monkeypatch.setattr(ann_recall, "TARGET", 0.0)
    path = tmp_path / "index"
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=32),
                             store=SimpleVectorStore(ann=AnnSettings(min_rows=1000)),
                             splitter=SentenceSplitter(chunk_size=64, chunk_overlap=8))
    for start, stop in ((0, 1200), (1200, 1260), (1260, 1300)):  # three segments, one with ANN
        for d in range(start, stop):
            index.insert(Document(text=f"Note {d % 50} about the river {d % 7}.", doc_id=f"d{d}",
                                  metadata={"group": d % 3}))
        index.delete_ref_doc(f"d{start + 3}")
        index.persist(path)
    assert list(current_data(path).rglob(ANN_FILE))  # the big segment's approximate index
    expected = _answers(_open(path))
    reader = _open(path)
    shutil.rmtree(current_data(path))  # as a writer's clean-up removes it
    with caplog.at_level(logging.INFO, logger="ragcore.index.keyword_parts"):
        assert _answers(reader) == expected
    assert "building the keyword postings" not in caplog.text  # its own, not rebuilt
