"""Persisting and loading an index folder: round trips, atomic replacement, damage, laziness."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

import ragcore.index.disk.folder
import ragcore.index.disk.generations
from ragcore.index.disk import checksums
from ragcore.index.docstore import DocStore
from ragcore.embeddings import FakeEmbedder
from ragcore.errors import ConfigError, EmbeddingError, IndexFormatError, PersistError
from ragcore.index import VectorStoreIndex
from ragcore.stores.simple.ann import AnnSettings
from ragcore.stores.simple import rows as matrix_rows
from ragcore.stores.simple import store as simple
from ragcore.types import Document, Node

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def built(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir() if p.name != path.name)


def _data(path: Path) -> Path:
    """The current generation folder of the index at ``path``."""
    return ragcore.index.disk.folder.current_data(path)


def _all_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file())


def test_round_trip_keeps_everything(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    loaded = _load(path)
    assert len(loaded) == len(built)
    assert loaded.ref_doc_ids() == built.ref_doc_ids()
    assert loaded.node_ids() == built.node_ids()
    ids = built.node_ids()
    assert np.array_equal(loaded.get_vectors(ids), built.get_vectors(ids))
    for node in built.all_nodes():
        assert loaded.get_node(node.node_id).to_dict() == node.to_dict()
    for doc_id in built.ref_doc_ids():
        assert loaded.doc_info(doc_id) == built.doc_info(doc_id)
    query = "borrow checker references"
    assert [(r.node.node_id, round(r.score, 5)) for r in loaded.as_retriever().retrieve(query)] == [
        (r.node.node_id, round(r.score, 5)) for r in built.as_retriever().retrieve(query)
    ]
    stats = loaded.stats()
    assert stats["bytes_on_disk"] > 0 and stats["path"] == str(path)
    assert stats["created"] == built.stats()["created"]


def test_manifest_describes_the_index(built, tmp_path):
    built.persist(tmp_path / "index")
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["format"] == "ragcore-index" and manifest["version"] == 4
    assert manifest["generation"] == "gen-000001"
    assert set(manifest["files"]) >= {"docs.json", "nodes.jsonl", "vectors.npy", "store.json"}
    assert manifest["revision"] == built.revision > 0
    assert manifest["embed_model"] == {"name": "fake-embedder", "dim": 64, "max_input_tokens": None}
    ann = AnnSettings().to_json()  # when big segments are searched approximately, and how
    assert manifest["store"] == {"type": "SimpleVectorStore",
                                 "settings": {"metric": "cosine", "ann": ann}}
    assert manifest["splitter"] == {"type": "ParagraphSplitter", "settings": {"chunk_size": 100}}
    assert manifest["counts"]["documents"] == 3 and manifest["counts"]["nodes"] == 6
    assert manifest["created"] and manifest["updated"]


def test_tricky_text_round_trips(fake_embedder, tmp_path):
    text = "line\nbreak \u2028 separator \"quoted\" \\ back\tslash \U0001F600 \x00 nul"
    nodes = [Node(text=text, node_id="weird id \n with newline", ref_doc_id="d")]
    index = VectorStoreIndex(nodes, embedder=fake_embedder)
    index.persist(tmp_path / "i")
    assert _load(tmp_path / "i").get_node("weird id \n with newline").text == text


def test_changes_are_visible_after_reload_and_gone_from_disk(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    index = _load(path)
    index.delete_ref_doc("markets.txt")
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    index.refresh_ref_docs([Document(text="Rust is memory safe.", doc_id="rust.md")])
    index.persist(path)
    again = _load(path)
    assert again.ref_doc_ids() == ["cats.txt", "owls.txt", "rust.md"]
    assert [n.text for n in again.nodes_for_doc("rust.md")] == ["Rust is memory safe."]
    assert again.as_retriever(similarity_top_k=1).retrieve("owls hunt")[0].node.text == (
        "Owls hunt at night."
    )
    on_disk = _all_bytes(path)
    assert b"stock market" not in on_disk and b"borrow checker" not in on_disk
    assert _siblings(path) == []  # no temporary or old folders left behind
    assert sorted(p.name for p in path.iterdir()) == ["gen-000002", "manifest.json", "writer.lock"]


def test_reloaded_index_persisted_in_place_keeps_unread_nodes(built, tmp_path, monkeypatch):
    monkeypatch.setattr(matrix_rows, "MMAP_MIN_BYTES", 0)  # vectors memory-mapped from the old folder
    path = tmp_path / "index"
    built.persist(path)
    index = _load(path)
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    index.persist(path)  # replaces the folder the index was loaded from
    assert index.get_node("rust.md#1").text.startswith("The borrow checker")
    assert len(_load(path)) == 7


def test_load_does_not_resolve_the_embedder(built, tmp_path):
    built.persist(tmp_path / "i")
    loaded = VectorStoreIndex.load(tmp_path / "i")
    assert loaded._embedder is None
    assert loaded.embed_model_name == "fake-embedder"
    with pytest.raises(EmbeddingError, match="built with the embedding model 'fake-embedder'"):
        loaded.as_retriever().retrieve("cats")


def test_load_with_another_model_is_refused(built, tmp_path):
    built.persist(tmp_path / "i")
    with pytest.raises(EmbeddingError, match="fake-embedder"):
        VectorStoreIndex.load(tmp_path / "i", embedder=FakeEmbedder(model_name="other"))


def test_load_in_a_fresh_process_loads_no_model_and_no_tokenizer(built, tmp_path):
    built.persist(tmp_path / "i")
    code = textwrap.dedent(
        f"""
        import sys
        import ragcore.tokens
        from ragcore.embeddings import FakeEmbedder
        from ragcore.index import VectorStoreIndex
        index = VectorStoreIndex.load({str(tmp_path / "i")!r})
        assert len(index) == 6 and index.stats()["documents"] == 3
        index = VectorStoreIndex.load({str(tmp_path / "i")!r}, embedder=FakeEmbedder())
        hits = index.as_retriever(similarity_top_k=1).retrieve("cats purr")
        assert hits[0].node.text == "Cats purr when they are content.", hits
        heavy = [m for m in ("torch", "sentence_transformers", "transformers", "tiktoken")
                 if m in sys.modules]
        assert not heavy, heavy
        assert not ragcore.tokens.tokenizer_loaded()
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_failed_write_leaves_the_old_index_loadable(built, tmp_path, monkeypatch):
    path = tmp_path / "index"
    built.persist(path)
    built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))

    def crash(self, folder):
        (folder / "vectors.npy").write_bytes(b"half written")
        raise OSError("disk full")

    monkeypatch.setattr(simple.SimpleVectorStore, "persist", crash)
    with pytest.raises(OSError, match="disk full"):
        built.persist(path)
    monkeypatch.undo()
    old = _load(path)
    assert len(old) == 6 and "owls.txt" not in old.ref_doc_ids()
    assert _siblings(path) == []


def test_failed_publish_keeps_the_old_index(built, tmp_path, monkeypatch):
    path = tmp_path / "index"
    built.persist(path)

    def replace(src, dst):
        raise OSError("rename refused")

    monkeypatch.setattr(ragcore.index.disk.generations.os, "replace", replace)
    built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    with pytest.raises(PersistError, match="rename refused"):
        built.persist(path)
    monkeypatch.undo()
    assert len(_load(path)) == 6 and _siblings(path) == []
    assert sorted(p.name for p in path.iterdir()) == ["gen-000001", "manifest.json", "writer.lock"]


def test_a_persist_of_an_older_version_killed_between_renames_is_recovered_on_load(
    built, tmp_path
):
    path = tmp_path / "index"
    built.persist(path)
    os.rename(path, tmp_path / ".index.old-1234abcd")  # where a crash would leave it
    assert len(_load(path)) == 6
    assert _siblings(path) == []


def test_stale_backups_are_removed_by_the_next_persist(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    (tmp_path / ".index.old-deadbeef").mkdir()  # a crash after the swap, before the cleanup
    built.persist(path)
    assert _siblings(path) == []


def test_refuses_to_replace_a_folder_that_is_not_an_index(built, tmp_path):
    precious = tmp_path / "documents"
    precious.mkdir()
    (precious / "thesis.docx").write_text("years of work")
    with pytest.raises(PersistError, match="not a ragcore index"):
        built.persist(precious)
    assert (precious / "thesis.docx").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(PersistError, match="is a file"):
        built.persist(tmp_path / "file")


def _edit_manifest(path: Path, **changes) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    for key, value in changes.items():
        section, _, field = key.partition("__")
        if field:
            manifest[section][field] = value
        else:
            manifest[section] = value
    (path / "manifest.json").write_text(json.dumps(manifest))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _in_data(damage):
    """Damage a file of the current generation, then record its checksums again (as a writer
    with a bug would): the structural checks behind the checksums must still catch it."""

    def apply(path: Path) -> None:
        data = _data(path)
        damage(data)
        names = [c.name for c in data.iterdir() if c.is_file() and c.name != "reading.lock"]
        manifest = json.loads((path / "manifest.json").read_text())
        manifest["files"] = checksums.record_files(data, names)
        (path / "manifest.json").write_text(json.dumps(manifest))

    return apply


DAMAGE = {
    "missing vectors": (
        _in_data(lambda p: (p / "vectors.npy").unlink()), "vectors.npy: file is missing"
    ),
    "truncated nodes": (
        _in_data(lambda p: _truncate(p / "nodes.jsonl")), "nodes.jsonl: is .* truncated"
    ),
    "count mismatch": (
        lambda p: _edit_manifest(p, counts__nodes=7),
        "SimpleVectorStore holds 6 vectors but the manifest lists 7",
    ),
    "bad manifest json": (
        lambda p: (p / "manifest.json").write_text("{not json"),
        "manifest.json: damaged JSON",
    ),
    "foreign manifest": (
        lambda p: (p / "manifest.json").write_text('{"format": "llama-index"}'),
        "not a ragcore index",
    ),
    "newer version": (lambda p: _edit_manifest(p, version=5), "newer than this ragcore"),
    "no manifest": (lambda p: (p / "manifest.json").unlink(), "manifest.json: missing"),
    "missing docs": (
        _in_data(lambda p: (p / "docs.json").unlink()), "docs.json: file is missing"
    ),
    "bad docs": (
        _in_data(lambda p: (p / "docs.json").write_text('{"doc_ids": 1}')), "docs.json: expected"
    ),
    "bad node ids": (
        _in_data(lambda p: (p / "node_ids.json").write_text("[]")), "node_ids.json: lists 0"
    ),
    "bad offsets": (
        _in_data(lambda p: np.save(p / "offsets.npy", np.zeros(3))), "offsets.npy: expected 7"
    ),
    "missing field": (lambda p: _edit_manifest(p, embed_model={}), "'embed_model.name' is missing"),
    "metric mismatch": (
        lambda p: _edit_manifest(p, store__settings={"metric": "dot"}),
        "store.json: holds 'cosine' vectors but the manifest says 'dot'",
    ),
    "bad store settings": (
        lambda p: _edit_manifest(p, store__settings=[1]), "'store.settings' is not an object"
    ),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damaged_folders_raise_a_clear_error(built, tmp_path, case):
    damage, message = DAMAGE[case]
    path = tmp_path / "index"
    built.persist(path)
    damage(path)
    with pytest.raises(IndexFormatError, match=message):
        VectorStoreIndex.load(path)


def test_missing_folder_says_so(tmp_path):
    with pytest.raises(PersistError, match="no index folder"):
        VectorStoreIndex.load(tmp_path / "nothing")


def test_a_damaged_node_record_is_reported_when_read(built, tmp_path):
    path = tmp_path / "index"
    built.persist(path)
    data = bytearray((_data(path) / "nodes.jsonl").read_bytes())
    data[0:1] = b"#"
    (_data(path) / "nodes.jsonl").write_bytes(bytes(data))
    index = _load(path)
    with pytest.raises(IndexFormatError, match="line 1 .* does not match the checksum"):
        index.get_node(index.doc_info("cats.txt").node_ids[0])


def test_nodes_are_decoded_lazily(built, tmp_path):
    built.persist(tmp_path / "i")
    store = DocStore.load(_data(tmp_path / "i"), expected_nodes=6)
    assert store._nodes == {} and store._entries is None
    assert store.get("rust.md#1").text.startswith("The borrow checker")
    assert list(store._nodes) == ["rust.md#1"]


def test_the_splitter_is_rebuilt_from_the_manifest(fake_embedder, tmp_path):
    from ragcore.chunking import SentenceSplitter

    splitter = SentenceSplitter(chunk_size=120, chunk_overlap=10)
    index = VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=splitter
    )
    index.persist(tmp_path / "i")
    loaded = VectorStoreIndex.load(tmp_path / "i", embedder=fake_embedder)
    assert loaded.splitter.settings() == splitter.settings()
    _edit_manifest(tmp_path / "i", splitter={"type": "MySplitter", "settings": {}})
    custom = VectorStoreIndex.load(tmp_path / "i", embedder=fake_embedder)
    with pytest.raises(ConfigError, match="'MySplitter'.*pass splitter="):
        custom.insert(Document(text="x", doc_id="x"))
    given = VectorStoreIndex.load(tmp_path / "i", embedder=fake_embedder, splitter=splitter)
    given.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    assert [n.text for n in given.nodes_for_doc("owls.txt")] == ["Owls hunt at night."]


V1 = Path(__file__).resolve().parents[2] / "data" / "index_v1"


def test_a_format_version_1_folder_loads_answers_and_upgrades(built, tmp_path):
    """tests/data/index_v1 was written by ragcore before the store registry, revisions and
    store document ids (the same animal documents, fake embedder, paragraph splitter)."""
    old = _load(V1)
    assert old.revision == 0 and ragcore.index.disk.folder.read_revision(V1) == 0
    assert old.ref_doc_ids() == built.ref_doc_ids()
    for question in ("why do cats purr", "bond yields", "borrow checker"):
        got = old.as_retriever(similarity_top_k=3).retrieve(question)
        want = built.as_retriever(similarity_top_k=3).retrieve(question)
        assert [(r.node.node_id, round(r.score, 5)) for r in got] == [
            (r.node.node_id, round(r.score, 5)) for r in want
        ]
    path = tmp_path / "copy"
    old.persist(path)  # a copy elsewhere keeps revision 0: nothing changed
    assert ragcore.index.disk.folder.read_revision(path) == 0
    copy = _load(path)
    assert copy.delete_ref_doc("markets.txt")  # rows without document ids are deleted by id
    copy.persist(path)
    manifest = json.loads((path / "manifest.json").read_text())
    assert manifest["revision"] == 1 and manifest["store"]["settings"]["metric"] == "cosine"
    assert manifest["version"] == 4
    again = _load(path)
    assert len(again) == len(again.store) == 4
    assert b"stock market" not in _all_bytes(path)


def test_a_save_moves_records_to_disk_and_the_next_copies_them_with_their_checksums(
    built, tmp_path
):
    first, second = tmp_path / "a", tmp_path / "b"
    built.persist(first)
    docstore = built._state.docstore
    assert docstore._nodes == {} and docstore._since.fresh == set()  # read from the file now
    assert built.get_node("rust.md#1").text.startswith("The borrow checker")
    # Damage a saved line: the next save copies it as it is, with the checksum recorded first,
    # so the damage is still found (never laundered into a fresh checksum).
    saved = _data(first) / "nodes.jsonl"
    data = bytearray(saved.read_bytes())
    data[0:1] = b"#"
    saved.write_bytes(bytes(data))
    built.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    built.persist(second)
    assert (_data(second) / "nodes.jsonl").read_bytes()[:1] == b"#"
    index = _load(second)
    assert index.get_node(index.doc_info("owls.txt").node_ids[0]).text == "Owls hunt at night."
    assert index.get_node("rust.md#1").text.startswith("The borrow checker")
    with pytest.raises(IndexFormatError, match="line 1 .* does not match the checksum"):
        index.get_node(index.node_ids()[0])
