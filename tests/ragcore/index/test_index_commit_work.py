"""A commit's work follows its batch, not the index: the entries it reads and writes are counted.

Two indexes get the same batch: one of ``SMALL`` documents, one ten times bigger. Counted for
the commit alone: the lines of ragcore's code it runs (a loop over every document or node
runs at least one line per entry: ``sys.settrace`` sees each turn), and the entries in the
files it creates (elements of each new ``.npy``, values of each new ``.json``, lines of each new
``.jsonl``; files kept from the generation before are hard links, not written). Both must be
the same for both indexes, give or take a bounded amount of bookkeeping. Counts, not times:
they do not depend on the machine.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest

import ragcore
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document, Node

DIM = 8
SMALL = 2_000  # documents in the smaller index
BATCH = 200  # documents a commit adds
SLACK = 1.05  # what may grow with the index: a few runs, not entries

PACKAGE = str(Path(ragcore.__file__).parent)


def _batch(first: int, count: int) -> tuple[list[Document], list[Node], np.ndarray]:
    """``count`` documents from number ``first``: most of one node, every fifth of three."""
    docs, nodes = [], []
    for d in range(first, first + count):
        doc_id = f"doc-{d:07d}.txt"
        docs.append(Document(text=f"text {d}", doc_id=doc_id, metadata={"n": d}))
        nodes += [Node(text=f"part {p} of document {d}", node_id=f"{doc_id}#{p}",
                       ref_doc_id=doc_id) for p in range(3 if d % 5 == 0 else 1)]
    vectors = np.random.default_rng(first).standard_normal((len(nodes), DIM), np.float32)
    return docs, nodes, vectors


@contextmanager
def _lines_run() -> Iterator[list[int]]:
    """Count the lines of ragcore's code run meanwhile (one per turn of a loop)."""
    count = [0]

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(PACKAGE):
            return None
        if event == "line":
            count[0] += 1
        return trace

    sys.settrace(trace)
    try:
        yield count
    finally:
        sys.settrace(None)


def _entries(path: Path) -> int:
    """The entries a file holds: array elements, JSON values, or lines."""
    if path.suffix == ".npy":
        return int(np.load(path).size)
    if path.suffix == ".jsonl":
        return path.read_bytes().count(b"\n")
    if path.suffix == ".json":
        return _values(json.loads(path.read_bytes()))
    return 1


def _values(data: Any) -> int:
    if isinstance(data, dict):
        return sum(_values(v) for v in data.values())
    if isinstance(data, list):
        return sum(_values(v) for v in data)
    return 1


def _files(path: Path) -> dict[int, Path]:
    return {p.stat().st_ino: p for p in path.rglob("*") if p.is_file()}


def _commit_work(path: Path, documents: int, *, reload: bool) -> tuple[int, int]:
    """(lines run, entries written) by the commit of a ``BATCH``-document batch into an index of
    ``documents`` documents (``reload``: into the index loaded back from its folder)."""
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
    index.upsert_documents(*_batch(0, documents))
    index.persist(path)
    index.upsert_documents(*_batch(documents, BATCH))  # a first batch: two segments now
    index.persist(path)
    if reload:
        index = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM))
    index.upsert_documents(*_batch(documents + BATCH, BATCH))
    before = _files(path)
    with _lines_run() as lines:
        index.persist(path)
    written = [p for inode, p in _files(path).items() if inode not in before]
    return lines[0], sum(_entries(p) for p in written if p.name != "manifest.json")


@pytest.mark.parametrize("reload", [False, True], ids=["same writer", "after a load"])
def test_a_commit_reads_and_writes_as_much_into_a_ten_times_bigger_index(tmp_path, reload):
    lines, written = _commit_work(tmp_path / "small", SMALL, reload=reload)
    big_lines, big_written = _commit_work(tmp_path / "big", 10 * SMALL, reload=reload)
    assert big_lines <= lines * SLACK, (
        f"the commit ran {lines:,} lines of ragcore into {SMALL:,} documents but {big_lines:,} "
        f"into {10 * SMALL:,}: it walks the index")
    assert big_written <= written * SLACK, (
        f"the commit wrote {written:,} entries into {SMALL:,} documents but {big_written:,} "
        f"into {10 * SMALL:,}: it rewrites what it kept")
    assert written < 10 * BATCH * 8  # about a batch's worth: node records, ids, postings, rows


def _same(index: VectorStoreIndex, loaded: VectorStoreIndex) -> None:
    assert loaded.node_ids() == index.node_ids() and loaded.ref_doc_ids() == index.ref_doc_ids()
    for doc_id in index.ref_doc_ids():
        got, want = loaded.doc_info(doc_id), index.doc_info(doc_id)
        assert (got.node_ids, got.metadata, got.hash, got.characters) == (
            want.node_ids, want.metadata, want.hash, want.characters)
    assert [n.text for n in loaded.all_nodes()] == [n.text for n in index.all_nodes()]
    counts = {k: v for k, v in index.stats().items() if k in ("documents", "nodes", "characters")}
    assert counts == {k: loaded.stats()[k] for k in counts}
    assert counts["characters"] == sum(index.doc_info(d).characters for d in index.ref_doc_ids())


def _node(node_id: str, doc_id: str | None) -> Node:
    return Node(text=f"text of {node_id}", node_id=node_id, ref_doc_id=doc_id)


@pytest.mark.parametrize("seed", range(4))
def test_random_changes_and_commits_load_back_as_they_were(tmp_path, seed, monkeypatch):
    """Batches appended, loose nodes, nodes added to saved documents or replaced, documents
    deleted or changed, reloads and merges in a random order: every commit loads back the
    index as it was (whichever way the commit saved it)."""
    from ragcore.stores.simple import segments

    monkeypatch.setattr(segments, "FACTOR", 3)
    rng = np.random.default_rng(seed)
    path = tmp_path / "index"
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
    made = 0
    for step in range(40):
        docs = index.ref_doc_ids()
        kind = rng.choice(["batch"] * 6 + ["loose", "more", "replace", "delete", "prune",
                                            "info", "reload", "merge"])
        if kind == "batch" or not docs:
            index.upsert_documents(*_batch(made, int(rng.integers(1, 6))))
            made += 6
        elif kind == "loose":
            index.insert_nodes([_node(f"loose-{step}", None)], vectors=np.ones((1, DIM)))
        elif kind in ("more", "replace"):
            doc_id = docs[int(rng.integers(len(docs)))]
            node_id = f"{doc_id}#extra{step}" if kind == "more" else index.node_ids()[0]
            doc_id = doc_id if kind == "more" else index.get_node(node_id).ref_doc_id
            index.insert_nodes([_node(node_id, doc_id)], vectors=np.ones((1, DIM)))
        elif kind == "delete":
            index.delete_ref_doc(docs[int(rng.integers(len(docs)))])
        elif kind == "prune":
            index.delete_nodes([index.node_ids()[int(rng.integers(len(index)))]])
        elif kind == "info":
            doc_id = docs[int(rng.integers(len(docs)))]
            index.set_document_info(Document(text="x" * step, doc_id=doc_id, metadata={"s": step}))
        elif kind == "reload" and path.exists():
            index = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM))
        elif kind == "merge" and path.exists():
            index.merge_segments(path)
        if rng.random() < 0.6:
            index.persist(path)
            _same(index, VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM)))
    index.persist(path)
    _same(index, VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM)))
