"""The damage table: every kind of damage to an index folder gives a clear IndexFormatError
naming the file and the fix (at load, or when the damaged part is first read), never a wrong
result, and ``ragcore verify`` reports each one with exit status 1 and no traceback.

"rewritten" cases also record the damaged file's checksums again, as a writer with a bug would:
the structural checks behind the checksums must still catch what they can.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.cli import main
from ragcore.embeddings import FakeEmbedder
from ragcore.errors import IndexFormatError
from ragcore.index import VectorStoreIndex
from ragcore.index.disk import checksums
from ragcore.index.disk.folder import current_data
from ragcore.index.disk.verify import verify_index
from ragcore.workspace import Workspace


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _rechecksum(path: Path) -> None:
    data = current_data(path)
    names = [c.name for c in data.iterdir() if c.is_file() and c.name != "reading.lock"]
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["files"] = checksums.record_files(data, names)
    (path / "manifest.json").write_text(json.dumps(manifest))


def _replace(name: str, old: bytes, new: bytes):
    def damage(data: Path) -> None:
        raw = (data / name).read_bytes()
        assert old in raw, (name, old)
        (data / name).write_bytes(raw.replace(old, new, 1))

    return damage


def _empty(name: str):
    return lambda data: (data / name).write_bytes(b"")


def _swap_ids(data: Path) -> None:
    ids = json.loads((data / "vector_ids.json").read_text())
    ids[0], ids[1] = ids[1], ids[0]
    (data / "vector_ids.json").write_text(json.dumps(ids))


def _swap_node_ids(data: Path) -> None:
    ids = json.loads((data / "node_ids.json").read_text())
    ids[0], ids[1] = ids[1], ids[0]
    (data / "node_ids.json").write_text(json.dumps(ids))


def _swap_both_id_files(data: Path) -> None:
    _swap_node_ids(data)
    _swap_ids(data)


def _shift_vector_doc_ids(data: Path) -> None:
    doc_ids = json.loads((data / "vector_doc_ids.json").read_text())
    (data / "vector_doc_ids.json").write_text(json.dumps(doc_ids[1:] + doc_ids[:1]))


def _rotate_node_runs(data: Path) -> None:
    runs = np.load(data / "node_runs.npy")
    assert runs.tolist() == [[0, 6]]
    np.save(data / "node_runs.npy", np.array([[2, 4], [0, 2]], dtype=np.int64))


def _shift_counts(data: Path) -> None:
    counts = np.load(data / "node_counts.npy")
    counts[0] -= 1
    counts[1] += 1
    np.save(data / "node_counts.npy", counts)


def _nan_row(data: Path) -> None:
    vectors = np.load(data / "vectors.npy")
    vectors[2] = np.nan
    np.save(data / "vectors.npy", vectors)


def _manifest_version_string(path: Path) -> None:
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["version"] = "1"
    (path / "manifest.json").write_text(json.dumps(manifest))


def _load_only(index: VectorStoreIndex) -> None:
    pass


def _query_all(index: VectorStoreIndex) -> None:
    for hit in index.as_retriever(similarity_top_k=len(index), mode="similarity").retrieve("cats"):
        assert hit.node.text  # every node decoded


def _filtered_query(index: VectorStoreIndex) -> None:
    index.as_retriever(filters={"topic": "pets"}, mode="similarity").retrieve("cats purr")


def _delete_doc(index: VectorStoreIndex) -> None:
    index.store.delete_ref_doc("markets.txt")  # the store finds the rows by their documents


def _doc_nodes(index: VectorStoreIndex) -> None:
    for doc_id in index.ref_doc_ids():
        index.nodes_for_doc(doc_id)


def _ids_forged(name: str) -> str:
    return rf"{name}_ids\.json: the ids, in order, are not the ones the index manifest recorded"


# name: (damage to the current generation, rewrite checksums?, what reads it, message)
DAMAGE = {
    "0-byte vectors file": (_empty("vectors.npy"), False, _load_only,
                            r"vectors\.npy: is 0 bytes but \d+ were written"),
    "0-byte vectors file, rewritten": (_empty("vectors.npy"), True, _load_only,
                                       r"vectors\.npy: not a readable \.npy"),
    "damaged vector metadata JSON": (_replace("vector_metadata.json", b'"topic"', b'"topic '),
                                     False, _load_only, r"vector_metadata\.json: bytes 0-\d+ do "
                                     "not match the checksum"),
    "damaged vector metadata JSON, rewritten": (
        _replace("vector_metadata.json", b'"topic"', b'"topic '), True, _filtered_query,
        r"vector_metadata\.json: damaged JSON"),
    "flipped letter in node text": (_replace("nodes.jsonl", b"Cats purr", b"Cats purs"), False,
                                    _query_all, r"nodes\.jsonl: line \d+ .* does not match the "
                                    "checksum"),
    "two swapped vector ids": (_swap_ids, False, _load_only,
                               r"vector_ids\.json: bytes 0-\d+ do not match the checksum"),
    # Forged: ids swapped or shifted between files, every file's checksum recomputed after.
    "two swapped node ids, rewritten": (_swap_node_ids, True, _load_only, _ids_forged("node")),
    "two swapped vector ids, rewritten": (_swap_ids, True, _load_only, _ids_forged("vector")),
    "vector document ids shifted by a row, rewritten": (
        _shift_vector_doc_ids, True, _delete_doc, _ids_forged("vector_doc")),
    "the same two ids swapped in both id files, rewritten": (
        _swap_both_id_files, True, _load_only, _ids_forged("node")),
    "node runs rotated, rewritten": (_rotate_node_runs, True, _doc_nodes,
                                     r"node_counts\.npy: lists node .* under document"),
    "shifted per-document node counts": (_shift_counts, False, _load_only,
                                         r"node_counts\.npy: bytes 0-\d+ do not match"),
    "shifted per-document node counts, rewritten": (
        _shift_counts, True, _doc_nodes, r"node_counts\.npy: lists node .* under document"),
    "emptied vector-metadata file": (_empty("vector_metadata.json"), False, _load_only,
                                     r"vector_metadata\.json: is 0 bytes but \d+ were written"),
    "emptied vector-metadata file, rewritten": (_empty("vector_metadata.json"), True,
                                                _filtered_query,
                                                r"vector_metadata\.json: damaged JSON"),
    "NaN vectors": (_nan_row, False, _load_only, r"vectors\.npy: bytes 0-\d+ do not match"),
    "NaN vectors, rewritten": (_nan_row, True, _query_all, r"NaN or infinite values"),
    "node offsets cut short": (lambda d: np.save(d / "offsets.npy", np.zeros(3, np.int64)),
                               False, _load_only, r"offsets\.npy: is \d+ bytes but"),
    "manifest version written as the string '1'": (
        None, False, _load_only, r"manifest\.json: the format version is '1', not a positive "
        "integer: the manifest is damaged"),
}


@pytest.fixture
def index_path(tmp_path, fake_embedder):
    path = tmp_path / "index"
    VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    ).persist(path)
    return path


def _damage(path: Path, case: str) -> None:
    damage, rewrite, _, _ = DAMAGE[case]
    if damage is None:
        _manifest_version_string(path)
        return
    damage(current_data(path))
    if rewrite:
        _rechecksum(path)


@pytest.mark.parametrize("case", list(DAMAGE))
def test_damage_gives_a_clear_error_naming_the_file(index_path, case):
    _, _, read, message = DAMAGE[case]
    _damage(index_path, case)
    with pytest.raises(IndexFormatError, match=message) as caught:
        read(_load(index_path))
    text = str(caught.value)
    assert "rebuild" in text or "restore" in text  # and says what to do


@pytest.mark.parametrize("case", list(DAMAGE))
def test_verify_reports_every_damage_without_a_traceback(index_path, case, capsys):
    assert main(["verify", str(index_path)]) == 0
    assert "ok:" in capsys.readouterr().out
    _damage(index_path, case)
    assert main(["verify", str(index_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    assert "manifest.json" in err or str(current_data(index_path)) in err


def test_a_damaged_block_that_loading_may_not_sample_is_found_by_verify(
    tmp_path, fake_embedder, monkeypatch
):
    monkeypatch.setattr(checksums, "BLOCK", 64)  # many small blocks: loading samples four
    monkeypatch.setattr(checksums, "EAGER_BLOCKS", 1)
    path = tmp_path / "index"
    VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    ).persist(path)
    vectors = current_data(path) / "vectors.npy"
    raw = bytearray(vectors.read_bytes())
    middle = len(raw) // 2
    raw[middle] ^= 0x01  # one flipped bit in a middle block
    vectors.write_bytes(bytes(raw))
    with pytest.raises(IndexFormatError, match=rf"vectors\.npy: bytes {middle // 64 * 64}-"):
        verify_index(path)


def test_verify_a_workspace_index_by_name(tmp_path, fake_embedder, capsys):
    workspace = Workspace(tmp_path / "ws", embedder=fake_embedder)
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Zero trust grants access per session.", encoding="utf-8")
    workspace.ingest("notes", [docs])
    argv = ["--workspace", str(tmp_path / "ws"), "verify", "--index", "notes"]
    assert main(argv, embedder=fake_embedder) == 0
    out = capsys.readouterr().out
    assert out.startswith("ok: ") and "1 documents, 1 nodes" in out
    assert main(["--workspace", str(tmp_path / "ws"), "verify", "--index", "nope"]) == 1
    assert "no index named 'nope'" in capsys.readouterr().err


def test_verify_reads_a_format_version_1_folder(capsys):
    v1 = Path(__file__).resolve().parents[2] / "data" / "index_v1"
    assert main(["verify", str(v1)]) == 0
    assert "format version 1" in capsys.readouterr().out


def _without_id_digests(path: Path) -> None:
    """The manifest as a ragcore from before the id digests wrote it."""
    manifest = json.loads((path / "manifest.json").read_text())
    del manifest["ids"]
    (path / "manifest.json").write_text(json.dumps(manifest))


def test_a_folder_without_id_digests_loads_and_gets_them_on_its_next_save(index_path):
    recorded = json.loads((index_path / "manifest.json").read_text())["ids"]
    assert set(recorded) == {"node_ids.json", "vector_ids.json", "vector_doc_ids.json"}
    _without_id_digests(index_path)
    index = _load(index_path)
    _query_all(index)
    index.delete_ref_doc("markets.txt")
    index.persist(index_path)
    ids = json.loads((index_path / "manifest.json").read_text())["ids"]
    assert set(ids) == set(recorded) and ids["node_ids.json"] != recorded["node_ids.json"]
    _swap_ids(current_data(index_path))  # and they now guard it
    _rechecksum(index_path)
    with pytest.raises(IndexFormatError, match=_ids_forged("vector")):
        _load(index_path)


def test_without_digests_a_node_id_swap_is_still_caught_when_the_node_is_read(index_path):
    _without_id_digests(index_path)
    _swap_node_ids(current_data(index_path))
    _rechecksum(index_path)
    with pytest.raises(IndexFormatError, match=r"node_ids\.json: entry \d is .* but line \d of "
                       r"nodes\.jsonl holds node"):
        _query_all(_load(index_path))


def test_without_digests_verify_still_finds_vector_rows_under_the_wrong_document(
    index_path, capsys
):
    _without_id_digests(index_path)
    _shift_vector_doc_ids(current_data(index_path))
    _rechecksum(index_path)
    assert main(["verify", str(index_path)]) == 1
    assert re.search(r"vector_doc_ids\.json: the vector of node .* is listed under document",
                     capsys.readouterr().err)
