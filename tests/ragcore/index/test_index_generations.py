"""Generations of an index folder: one writer at a time, readers keep what they opened, debris of
dead writers is removed, old layouts load and are upgraded, stores outside the folder work."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import PersistError
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.folder import current_data, read_revision
from ragcore.index.disk.generations import READER_LOCK, reading, writer_lock
from ragcore.stores.base import StoreSpec
from ragcore.stores.registry import register_vector_store
from ragcore.stores.simple.store import SimpleVectorStore
from ragcore.types import Document

V1 = Path(__file__).resolve().parents[2] / "data" / "index_v1"


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


@pytest.fixture
def built(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def _names(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir())


def test_each_persist_publishes_a_new_generation_and_removes_the_old(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    assert _names(path) == ["gen-000001", "manifest.json", "writer.lock"]
    built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    built.persist(path)
    assert _names(path) == ["gen-000002", "manifest.json", "writer.lock"]
    assert current_data(path) == path / "gen-000002" and len(_load(path)) == 7


def test_a_second_writer_waits_then_fails_naming_the_first(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    with writer_lock(path):  # another writer (flock conflicts between open files, too)
        with pytest.raises(PersistError, match=rf"another process \(pid {os.getpid()}\)"):
            with writer_lock(path, wait_seconds=0.2):
                pass
    built.persist(path)  # free again


def test_a_generation_a_reader_is_opening_is_kept_until_a_later_persist(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    first = current_data(path)
    with reading(first):  # a reader between reading the manifest and holding the files
        built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
        built.persist(path)
        assert first.is_dir() and (first / "docs.json").exists()
    built.persist(path)
    assert not first.exists() and _names(path) == ["gen-000003", "manifest.json", "writer.lock"]


def test_a_loaded_index_keeps_working_after_its_generation_is_deleted(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    reader = _load(path)  # nodes are decoded lazily from the memory-mapped generation
    writer = _load(path)
    writer.delete_ref_doc("cats.txt")
    writer.persist(path)
    writer.persist(tmp_path / "elsewhere")
    assert not (path / "gen-000001").exists()
    assert reader.get_node("cats.txt#0").text == "Cats purr when they are content."
    assert reader.as_retriever(similarity_top_k=1).retrieve("cats purr")[0].node.node_id == (
        "cats.txt#0"
    )
    reader.persist(tmp_path / "copy")  # copies node lines out of the deleted file's mapping
    assert len(_load(tmp_path / "copy")) == 6


def test_debris_of_dead_writers_is_removed_by_the_next_load(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    (path / "gen-000007").mkdir()  # a writer killed while writing its generation
    (path / "gen-000007" / "docs.json").write_text("{")
    (path / ".trash-gen-000003-ab12").mkdir()  # killed while deleting an old one
    (path / ".manifest.json.tmp-1234").write_text("{")  # killed before publishing
    (tmp_path / ".index.tmp-99aa").mkdir()  # what older versions left beside the folder
    (tmp_path / ".index.old-88bb").mkdir()
    assert len(_load(path)) == 6
    assert _names(path) == ["gen-000001", "manifest.json", "writer.lock"]
    assert _names(tmp_path) == ["index"]


def test_the_next_generation_is_numbered_past_the_current_one(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    (path / "gen-000005").mkdir()  # unpublished, so never named by a manifest: removed
    built.persist(path)
    assert _names(path) == ["gen-000002", "manifest.json", "writer.lock"]


def test_a_folder_holding_only_a_dead_first_writers_debris_can_be_written(built, tmp_path):
    path = tmp_path / "index"
    path.mkdir()
    (path / "writer.lock").write_text("12345\n")
    (path / "gen-000001").mkdir()
    built.persist(path)
    assert _names(path) == ["gen-000001", "manifest.json", "writer.lock"] and len(_load(path)) == 6


def test_recovery_of_an_old_layout_crash_skips_a_half_deleted_backup(built, tmp_path):
    old = tmp_path / "old-layout"
    shutil.copytree(V1, old)
    half = tmp_path / ".index.old-2222"  # newer, but its deletion had begun
    shutil.copytree(V1, half)
    (half / "docs.json").unlink()
    os.utime(old, (1, 1))
    os.rename(old, tmp_path / ".index.old-1111")
    index = _load(tmp_path / "index")
    assert len(index) == 6 and "markets.txt" in index.ref_doc_ids()
    assert _names(tmp_path) == ["index"]  # the half-deleted backup is gone too


def test_a_version_1_folder_is_upgraded_in_place_by_the_next_persist(tmp_path):
    path = tmp_path / "index"
    shutil.copytree(V1, path)
    index = _load(path)
    index.delete_ref_doc("markets.txt")
    index.persist(path)
    assert _names(path) == ["gen-000001", "manifest.json", "writer.lock"]
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["version"] == 4 and read_revision(path) == 1
    assert len(_load(path)) == 4


class _OutsideStore(SimpleVectorStore):
    """A store whose rows live outside the index folder (as in a database): persist writes
    nothing there, and the opener finds the rows by the name in its settings."""

    rows: dict[str, SimpleVectorStore] = {}

    def describe(self) -> StoreSpec:
        return StoreSpec("OutsideStore", {"name": "drill"})

    def persist(self, folder: Path) -> None:
        _OutsideStore.rows["drill"] = self


register_vector_store("OutsideStore", lambda folder, s: _OutsideStore.rows[s["name"]],
                      replace=True)


def test_a_store_whose_rows_live_outside_the_folder_persists_and_loads(fake_embedder, tmp_path):
    index = VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter(), store=_OutsideStore()
    )
    path = tmp_path / "index"
    index.persist(path)
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    index.persist(path)
    names = set(json.loads((path / "manifest.json").read_text())["files"])
    assert "vectors.npy" not in names and "docs.json" in names
    loaded = _load(path)
    assert len(loaded) == 7
    assert loaded.as_retriever(similarity_top_k=1).retrieve("owls")[0].node.ref_doc_id == "owls.txt"
    assert sorted(p.name for p in current_data(path).iterdir())[-1] == READER_LOCK


def test_a_folder_whose_first_persist_never_published_says_so(tmp_path):
    path = tmp_path / "index"
    path.mkdir()
    (path / "writer.lock").write_text("12345\n")
    (path / "gen-000001").mkdir()
    with pytest.raises(PersistError, match="manifest.json: missing: the first persist into .* never finished"):
        _load(path)
