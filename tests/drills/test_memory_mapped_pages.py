"""Memory bounded by the batch: files read during an ingestion leave no resident pages behind.

Pages of a memory-mapped file that were read stay in the process's resident memory until it is
unmapped: counting the tokens of a 205 MB text read ~500 MB of node records through a map,
a merge of big segments read every vector through one, and the ANN index just built stayed in
memory beside its saved file. These tests look at ``/proc/self/smaps`` (Linux only).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from ragcore.index.disk.node_file import NodeFile, write_node_file
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple.ann import ANN_FILE, AnnSettings
from ragcore.stores.simple.rows import MatrixRows, open_part
from ragcore.testing.clustered import clustered_vectors
from ragcore.types import Node

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/smaps")


def mapped_kb(path: Path) -> int | None:
    """Resident kB of this process's mappings of ``path`` (None if it is not mapped)."""
    found, name = None, str(path.resolve())
    lines = Path("/proc/self/smaps").read_text().splitlines()
    current = False
    for line in lines:
        fields = line.split()
        if fields and "-" in fields[0] and len(fields) >= 5:  # a mapping's first line
            current = len(fields) >= 6 and fields[5] == name
            found = 0 if current and found is None else found
        elif current and fields[0] == "Rss:":
            found += int(fields[1])
    return found


def test_node_records_are_read_without_mapping_their_file(tmp_path):
    nodes = [Node(text=f"text {i} " * 200, node_id=f"n{i}") for i in range(500)]
    records = [json.dumps(n.to_dict()).encode() + b"\n" for n in nodes]
    offsets, crcs = write_node_file(tmp_path, records, len(records))
    file = NodeFile(tmp_path / "nodes.jsonl", offsets, [n.node_id for n in nodes], crcs)
    assert [file.node(r).text for r in range(len(nodes))] == [n.text for n in nodes]
    assert mapped_kb(tmp_path / "nodes.jsonl") is None


def test_a_cut_short_node_file_is_reported_as_damaged(tmp_path):
    records = [b'{"text": "a", "id_": "n0"}\n', b'{"text": "b", "id_": "n1"}\n']
    offsets, _ = write_node_file(tmp_path, records, 2)
    path = tmp_path / "nodes.jsonl"
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(Exception, match="cut short"):
        NodeFile(path, offsets, ["n0", "n1"]).node(1)


@pytest.mark.parametrize("live", [None, "every other row"])
def test_writing_saved_rows_reads_them_without_their_pages_staying_resident(tmp_path, live):
    vectors = np.random.default_rng(0).random((20000, 64), dtype=np.float32)  # 5 MB, mapped
    np.save(tmp_path / "part.npy", vectors)
    part = open_part(tmp_path / "part.npy", len(vectors))
    assert isinstance(part, np.memmap)
    rows = None if live is None else np.arange(0, len(vectors), 2)
    matrix = MatrixRows()
    matrix.adopt([part], [rows])
    matrix.write(tmp_path / "merged.npy")
    expected = vectors if rows is None else vectors[rows]
    assert np.array_equal(np.load(tmp_path / "merged.npy"), expected)
    # Mapped, and at most the kernel's fault-around (64 kB) of it resident, not the 5 MB read.
    assert mapped_kb(tmp_path / "part.npy") <= 64


def test_the_index_kept_after_a_save_is_the_saved_file_mapped_not_the_one_built(tmp_path):
    vectors = clustered_vectors(3000, 64, clusters=8, rank=16)
    store = SimpleVectorStore(ann=AnnSettings(min_rows=1000))
    store.add([f"n{i}" for i in range(len(vectors))], vectors)
    store.persist(tmp_path / "store")
    saved = list((tmp_path / "store").rglob(ANN_FILE))
    assert len(saved) == 1 and store._ann.indexed_rows() == len(vectors)
    assert mapped_kb(saved[0]) is not None
