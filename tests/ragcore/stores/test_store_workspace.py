"""Database stores through the workspace and the CLI: ``ragcore ingest --store``, the record,
reopening from the manifest without a password, and the refusal to switch stores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcore.cli import main
from ragcore.errors import ConfigError
from ragcore.stores import open_vector_store
from ragcore.stores.locations import collection_name, parse_location
from ragcore.workspace import Workspace

pytest.importorskip("chromadb", reason="needs chromadb: pip install '.[chroma]'")


@pytest.fixture
def docs(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "trust.txt").write_text(
        "Zero trust architecture assumes no implicit trust in assets or accounts.\n\n"
        "A policy engine grants access per session.", encoding="utf-8")
    (folder / "garden.md").write_text("# Garden\n\nTomatoes need sun and water.", encoding="utf-8")
    return folder


@pytest.fixture
def run(tmp_path, fake_embedder, capsys):
    def call(*argv: str):
        code = main(["--workspace", str(tmp_path / "ws"), *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


@pytest.fixture(params=["chroma", "chroma-server", "postgres"])
def location(request, tmp_path):
    if request.param == "chroma":
        return f"chroma:{tmp_path / 'chroma'}"
    if request.param == "chroma-server":
        return request.getfixturevalue("chroma_server")
    url = request.getfixturevalue("postgres_url")
    return url.replace("ragcore@", "ragcore:" + "ragcore-test-secret@")  # given at runtime


def test_cli_ingests_into_a_database_store_and_reopens_it(run, docs, location, tmp_path,
                                                          fake_embedder):
    code, out, err = run("ingest", str(docs), "--index", "notes", "--store", location)
    assert code == 0, out + err
    assert "2 indexed" in out
    ws = Workspace(tmp_path / "ws", embedder=fake_embedder)
    record = ws.record("notes")
    assert record.store == str(parse_location(location)) and "secret" not in record.store
    manifest = (tmp_path / "ws" / "indexes" / "notes" / "manifest.json").read_text()
    assert "secret" not in manifest
    spec = json.loads(manifest)["store"]
    assert spec["type"] in ("ChromaVectorStore", "PGVectorStore")
    index = ws.load_index("notes")
    assert type(index.store).__name__ == spec["type"] and len(index.store) == len(index) > 0
    hits = index.as_retriever(similarity_top_k=1, mode="similarity").retrieve("zero trust")
    assert hits and hits[0].node.metadata["file_name"] == "trust.txt"
    # a second ingest needs no --store; another store is refused
    code, out, _ = run("ingest", str(docs / "trust.txt"), "--index", "notes")
    assert code == 0 and "unchanged" in out
    code, _, err = run("ingest", str(docs), "--index", "notes", "--store", "numpy")
    assert code != 0 and "keeps its vectors in" in err
    # deleting a document removes its rows from the database too
    code, out, _ = run("delete-doc", str(docs / "garden.md"), "--index", "notes")
    assert code == 0, out
    index = ws.load_index("notes")
    assert len(index.store) == len(index)
    assert {n.metadata["file_name"] for n in index.all_nodes()} == {"trust.txt"}
    # deleting the index drops its collection or table
    spec = index.store.describe()
    code, out, err = run("delete-index", "notes", "--yes")
    assert code == 0, out + err
    assert len(open_vector_store(spec, tmp_path)) == 0


def test_store_locations_are_checked():
    assert parse_location("") is None and parse_location("numpy") is None
    assert str(parse_location("chroma:/data/c")) == "chroma:/data/c"
    assert str(parse_location("chroma+http://h:8000/x")) == "chroma+http://h:8000"
    assert str(parse_location("postgresql://u:pw@h:5/db")) == "postgresql://u@h:5/db"
    assert str(parse_location("chroma:rel")) == f"chroma:{Path('rel').resolve()}"
    name = collection_name("A very long index name, with spaces & signs " * 3, "0123456789abcdef")
    assert len(name) + len("_hnsw") <= 63 and name.endswith("_0123456789abcdef")
    assert re.fullmatch(r"[a-z0-9_]+", name)
    for bad in ("chroma:", "chroma+http://nohost", "mysql://x", "qdrant:/x"):
        with pytest.raises(ConfigError):
            parse_location(bad)


def test_an_unreachable_store_creates_no_index(tmp_path, fake_embedder):
    from support.engines import free_port

    from ragcore.errors import StoreError

    ws = Workspace(tmp_path / "ws", embedder=fake_embedder)
    with pytest.raises(StoreError, match="Chroma server"):
        ws.create_index("notes", store=f"chroma+http://127.0.0.1:{free_port()}")
    assert not ws.has_index("notes") and not (tmp_path / "ws" / "indexes" / "notes").exists()
