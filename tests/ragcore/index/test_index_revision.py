"""The index revision: one counter per index that grows with every change and only grows on disk.

Caches in other processes (the app, the workspace) compare ``folder.read_revision(path)`` with
the revision they loaded; these tests pin what they rely on.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import read_revision
from ragcore.types import Document


@pytest.fixture
def built(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def test_every_change_bumps_the_revision_and_nothing_else_does(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder, splitter=ParagraphSplitter())
    assert index.revision == 0
    steps = [
        lambda: index.insert(Document(text="Owls hunt.\n\nOwls sleep.", doc_id="owls")),
        lambda: index.refresh_ref_docs([Document(text="Owls hoot.", doc_id="owls")]),
        lambda: index.delete_nodes(["owls#0"]),
        lambda: index.insert(Document(text="Bats fly.", doc_id="bats")),
        lambda: index.delete_ref_doc("bats"),
    ]
    for step in steps:
        before = index.revision
        step()
        assert index.revision > before
    unchanged = index.revision
    index.refresh_ref_docs([Document(text="Owls hoot.", doc_id="owls")])  # same hash
    index.delete_ref_doc("nope")
    index.delete_nodes(["nope"])
    index.insert_nodes([])
    index.as_retriever().retrieve("owls")
    assert index.revision == unchanged


def test_persist_records_the_revision_and_read_revision_reads_it(built, tmp_path):
    path = tmp_path / "index"
    assert read_revision(path) is None  # nothing there yet
    built.persist(path)
    assert read_revision(path) == built.revision == _load(path).revision
    assert json.loads((path / "manifest.json").read_text())["revision"] == built.revision
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "manifest.json").write_text('{"format": "something else"}')
    assert read_revision(tmp_path / "notes") is None  # not an index
    assert read_revision(tmp_path / "missing") is None


def test_rewriting_unchanged_content_in_place_keeps_the_revision(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    first = read_revision(path)
    built.persist(path)
    loaded = _load(path)
    loaded.persist(path)
    assert read_revision(path) == first == loaded.revision


def test_revisions_on_disk_only_grow_when_writers_race(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    start = read_revision(path)
    one, two, stale = _load(path), _load(path), _load(path)
    one.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    one.persist(path)
    assert read_revision(path) == start + 1
    two.insert(Document(text="Bats fly at dusk.", doc_id="bats.txt"))
    assert two.revision == start + 1  # the same number as the disk, for other content
    two.persist(path)
    assert read_revision(path) == two.revision == start + 2
    stale.persist(path)  # unchanged since its load, but the folder moved on: still new content
    assert read_revision(path) == stale.revision == start + 3
    assert _load(path).ref_doc_ids() == built.ref_doc_ids()


def test_a_new_index_over_an_old_folder_continues_its_count(built, fake_embedder, tmp_path):
    path = tmp_path / "index"
    for _ in range(3):
        built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    built.persist(path)
    fresh = VectorStoreIndex.from_documents(
        animal_docs()[:1], embedder=fake_embedder, splitter=ParagraphSplitter()
    )
    assert fresh.revision < built.revision
    fresh.persist(path)
    assert read_revision(path) == fresh.revision == built.revision + 1


def test_keyword_postings_follow_the_revision(built, tmp_path):
    postings = built.keyword_index()
    assert built.keyword_index() is postings  # unchanged index: reused
    built.persist(tmp_path / "elsewhere")  # same nodes: still reused
    assert built.keyword_index() is postings
    built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    rebuilt = built.keyword_index()
    assert rebuilt is not postings and "owls.txt#0" in rebuilt.node_ids


def test_persisting_over_a_newer_folder_skips_ahead_without_rebuilding_postings(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    newer = _load(path)
    newer.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    newer.persist(path)
    postings = built.keyword_index()
    built.persist(path)  # the folder is ahead: the revision jumps, the nodes are the same
    assert built.revision == read_revision(path) and built.keyword_index() is postings


def test_read_revision_between_the_renames_of_a_persist_reads_the_old_folder(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    os.rename(path, tmp_path / ".index.old-1234abcd")  # where a swap in progress leaves it
    assert read_revision(path) == built.revision


def test_folders_without_a_revision_read_as_zero(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    manifest = json.loads((path / "manifest.json").read_text())
    del manifest["revision"]
    (path / "manifest.json").write_text(json.dumps(manifest))
    assert read_revision(path) == 0 and _load(path).revision == 0
