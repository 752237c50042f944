"""Forged damage: records changed and every checksum computed again after, as a writer with
access to the folder (or one with a bug) would leave them. The checksums then all match, so
``ragcore verify`` must find the change by comparing the records with one another
(``ragcore.index.disk.consistency``): a node's text against its keyword postings and the nodes it
overlaps, its id against its offsets and links, each vector against its text embedded again.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import numpy as np
import pytest

from ragcore.chunking import SentenceSplitter
from ragcore.cli import main
from ragcore.embeddings import FakeEmbedder
from ragcore.errors import IndexFormatError
from ragcore.index import VectorStoreIndex
from ragcore.index.disk import checksums
from ragcore.index.disk.folder import current_data, open_index_folder
from ragcore.index.disk.verify import verify_index
from ragcore.stores.simple.persist import ids_digest
from ragcore.types import Document

TEXTS = {
    "pets.txt": "Cats purr when they are content, and kittens chase string. Dogs bark at the "
                "mailman every morning. Parrots repeat words they hear often. Goldfish swim in "
                "slow circles, watching the room. Hamsters store seeds in their cheeks.",
    "markets.txt": "The stock market fell sharply today. Bond yields rose as investors sold. "
                   "Gold prices climbed for a third week. Analysts expect the central bank to "
                   "hold rates steady. Currency traders bought the yen on the news.",
}


@pytest.fixture
def index_path(tmp_path):
    docs = [Document(text=t, doc_id=d, metadata={"file_name": d}) for d, t in TEXTS.items()]
    index = VectorStoreIndex.from_documents(
        docs, embedder=FakeEmbedder(), splitter=SentenceSplitter(chunk_size=40, chunk_overlap=12))
    index.persist(tmp_path / "index")
    return tmp_path / "index"


def _records(data: Path) -> list[dict]:
    return [json.loads(line) for line in (data / "nodes.jsonl").read_bytes().splitlines()]


def _write_records(data: Path, records: list[dict]) -> None:
    """nodes.jsonl, its offsets and line CRCs, and node_ids.json, written as a save does."""
    lines = [(json.dumps(r, ensure_ascii=False) + "\n").encode() for r in records]
    (data / "nodes.jsonl").write_bytes(b"".join(lines))
    np.save(data / "offsets.npy", np.cumsum([0, *map(len, lines)]).astype(np.int64))
    np.save(data / "node_crcs.npy", np.array([zlib.crc32(line) for line in lines], np.uint32))
    (data / "node_ids.json").write_text(json.dumps([r["node_id"] for r in records]))


def _reseal(path: Path) -> None:
    """Every id digest and file checksum of the manifest computed again from the files."""
    data = current_data(path)
    manifest = json.loads((path / "manifest.json").read_text())
    for name in manifest["ids"]:
        manifest["ids"][name] = ids_digest(json.loads((data / name).read_text()))
    names = [c.name for c in data.iterdir() if c.is_file() and c.name != "reading.lock"]
    manifest["files"] = checksums.record_files(data, names)
    (path / "manifest.json").write_text(json.dumps(manifest))


def _flip_in_text(old: str, new: str):
    def forge(data: Path) -> str:
        records = _records(data)
        hit = next(r for r in records if old in r["text"])
        hit["text"] = hit["text"].replace(old, new, 1)
        _write_records(data, records)
        return hit["node_id"]

    return forge


def _swap_node_ids(data: Path) -> str:
    """The ids of a document's first two node records swapped, in the records and the list."""
    records = _records(data)
    first, second = records[0], records[1]
    assert first["ref_doc_id"] == second["ref_doc_id"]
    first["node_id"], second["node_id"] = second["node_id"], first["node_id"]
    _write_records(data, records)
    return first["node_id"]


def _swap_vector_rows(data: Path, other_document: bool) -> str:
    ids = json.loads((data / "vector_ids.json").read_text())
    docs = json.loads((data / "vector_doc_ids.json").read_text())
    j = next(k for k in range(1, len(ids)) if (docs[k] != docs[0]) == other_document)
    ids[0], ids[j] = ids[j], ids[0]
    docs[0], docs[j] = docs[j], docs[0]
    (data / "vector_ids.json").write_text(json.dumps(ids))
    (data / "vector_doc_ids.json").write_text(json.dumps(docs))
    return ids[0]


# name: (forge the current generation and return a node id it touched, the message expected)
FORGED = {
    "a letter of a word changed in node text": (
        _flip_in_text("Cats purr", "Cats purs"), r"its words are not those its keyword postings"),
    "a full stop made a comma where two nodes overlap": (
        _flip_in_text("hear often.", "hear often,"), r"differ on the characters \d+-\d+ they "
                                                     "share"),
    "two node ids swapped in the records and the id list": (
        _swap_node_ids, r"the two ids were swapped|names itself"),
}

# Vector rows swapped: only the text embedded again tells (verify with the index's model).
FORGED_VECTORS = {
    "two vector ids of one document swapped": lambda d: _swap_vector_rows(d, False),
    "two vector rows of two documents swapped with their document ids":
        lambda d: _swap_vector_rows(d, True),
}


def test_a_sound_index_verifies_with_every_cross_check(index_path, capsys):
    report = verify_index(index_path, embedder=FakeEmbedder())
    assert report.nodes > len(TEXTS)  # more than one node a document: they overlap
    assert main(["verify", str(index_path), "--embeddings"], embedder=FakeEmbedder()) == 0
    assert "ok:" in capsys.readouterr().out


@pytest.mark.parametrize("case", list(FORGED))
def test_forged_node_records_are_reported_by_verify(index_path, case, capsys):
    forge, message = FORGED[case]
    node_id = forge(current_data(index_path))
    _reseal(index_path)
    VectorStoreIndex.load(index_path, embedder=FakeEmbedder())  # every checksum matches
    with pytest.raises(IndexFormatError, match=message) as caught:
        verify_index(index_path)
    assert node_id in str(caught.value) and "re-ingest" in str(caught.value)
    assert main(["verify", str(index_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err and "disagree" in err


@pytest.mark.parametrize("case", list(FORGED_VECTORS))
def test_forged_vector_rows_are_reported_by_verify_with_the_model(index_path, case, capsys):
    node_id = FORGED_VECTORS[case](current_data(index_path))
    _reseal(index_path)
    VectorStoreIndex.load(index_path, embedder=FakeEmbedder())
    with pytest.raises(IndexFormatError, match=r"its vector is not its text's") as caught:
        verify_index(index_path, embedder=FakeEmbedder())
    assert node_id in str(caught.value)
    assert main(["verify", str(index_path), "--embeddings"], embedder=FakeEmbedder()) == 1
    assert "vector rows were swapped or shifted" in capsys.readouterr().err


# -- plain verify: a bounded sample of vectors against their texts (index.disk.vector_sample) --


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, counting the texts it embeds."""

    def __init__(self) -> None:
        super().__init__()
        self.texts = 0

    def embed_batch(self, texts):
        self.texts += len(texts)
        return super().embed_batch(texts)


def _topic_index(folder: Path, documents: int) -> Path:
    """An index of ``documents`` documents of 4-5 nodes each, each document its own words."""
    docs = [Document(text=" ".join(f"Topic{d} word{d}x{w} goes here." for w in range(60)),
                     doc_id=f"doc{d}") for d in range(documents)]
    index = VectorStoreIndex.from_documents(
        docs, embedder=FakeEmbedder(), splitter=SentenceSplitter(chunk_size=80, chunk_overlap=20))
    index.persist(folder)
    return folder


def _move_vectors(data: Path, first: str, second: str) -> None:
    """The stored vectors of two nodes exchanged in vectors.npy (ids and documents kept)."""
    ids = json.loads((data / "vector_ids.json").read_text())
    vectors = np.load(data / "vectors.npy")
    i, j = ids.index(first), ids.index(second)
    vectors[[i, j]] = vectors[[j, i]]
    np.save(data / "vectors.npy", vectors)


@pytest.mark.parametrize("case", list(FORGED_VECTORS))
def test_vectors_moved_between_nodes_are_reported_by_plain_verify(index_path, case, capsys):
    node_id = FORGED_VECTORS[case](current_data(index_path))
    _reseal(index_path)
    with pytest.raises(IndexFormatError, match=r"its vector is not its text's") as caught:
        verify_index(index_path, embedder=FakeEmbedder(), sample=True)
    assert node_id in str(caught.value)
    assert main(["verify", str(index_path)], embedder=FakeEmbedder()) == 1
    assert node_id in capsys.readouterr().err


def test_plain_verify_finds_a_vector_moved_between_documents_of_a_larger_index(tmp_path, capsys):
    path = _topic_index(tmp_path / "index", documents=20)
    docstore = open_index_folder(path).docstore
    first, second = docstore.doc_node_ids("doc3")[2], docstore.doc_node_ids("doc11")[1]
    _move_vectors(current_data(path), first, second)
    _reseal(path)
    counting = CountingEmbedder()
    assert main(["verify", str(path)], embedder=counting) == 1
    err = capsys.readouterr().err
    assert first in err and second in err and "--embeddings" in err
    assert counting.texts == 16 < len(docstore)  # a sample, not every node


def test_a_sound_index_passes_plain_verify_and_says_what_it_embedded(tmp_path, capsys):
    path = _topic_index(tmp_path / "index", documents=20)
    assert main(["verify", str(path)], embedder=FakeEmbedder()) == 0
    out = capsys.readouterr().out
    nodes = verify_index(path).nodes
    assert (f"re-embedded 16 of {nodes} nodes (12 least like their neighbours, 4 at random; "
            in out and "with fake-embedder): each is its vector" in out)
    assert f"for every node: `ragcore verify {path} --embeddings`" in out


@pytest.mark.parametrize("documents", [20, 120])
def test_plain_verify_embeds_a_bounded_number_of_nodes_whatever_the_index_size(tmp_path,
                                                                             documents):
    path = _topic_index(tmp_path / "index", documents=documents)
    counting = CountingEmbedder()
    report = verify_index(path, embedder=counting, sample=True)
    assert report.nodes >= documents * 4
    assert counting.texts == report.vectors.embedded == 16
    assert report.vectors.suspects == 12


def test_plain_verify_says_which_vector_check_it_could_not_make(index_path, capsys):
    # a folder names no way to load a model that is not the packaged one
    assert main(["verify", str(index_path)]) == 0
    out = capsys.readouterr().out
    assert ("vectors: not compared with their texts: the index was built with 'fake-embedder', "
            "which a folder does not say how to load" in out)
    # another model than the index's: its vectors could not be compared, so none are
    report = verify_index(index_path, embedder=FakeEmbedder(model_name="other"), sample=True)
    assert report.vectors.embedded == 0 and "'fake-embedder', not 'other'" in report.vectors.skipped
