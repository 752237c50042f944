"""The document store's files: ``nodes.jsonl`` with ``offsets.npy`` and ``node_crcs.npy``,
and ``docs.json``.

``NodeFile`` reads node records out of ``nodes.jsonl`` with positioned file reads, one line at
a time (the byte offset of every line is in ``offsets.npy``; a memory map would leave every page
read resident until unmapped, ~500 MB after counting the tokens of a 205 MB text), and ``write_node_file`` writes them back.
``node_crcs.npy`` holds the CRC-32 of every line (uint32): a line is checked when it is decoded,
and a line copied into the next generation (inside the kernel, never read) keeps the CRC
recorded when it was first written, so damage is found without reading the whole file at load
and is never laundered into a fresh checksum (folders from before CRCs have none).
``check_columns`` checks the columns of ``docs.json`` as loaded. ``docstore`` holds the
documents and nodes in memory and decides what is written; this module only knows the layout.
"""

from __future__ import annotations

import json
import os
import zlib
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from ...errors import IndexFormatError
from ...disk import copy_range, load_npy, write_npy
from ...types import Node
from .checksums import damaged

COLUMNS = ("doc_ids", "hashes", "node_counts", "characters", "indexed_at", "metadata")


class NodeFile:
    """Node records of a ``nodes.jsonl``, read line by line with ``os.pread``."""

    def __init__(
        self, path: Path, offsets: np.ndarray, node_ids: list[str], crcs: np.ndarray | None = None
    ) -> None:
        self.path = path
        self._offsets = offsets
        self._crcs = crcs
        self._ids = node_ids
        self._rows: dict[str, int] | None = None
        # Kept open for reads and kernel copies into the next generation (valid after a
        # deletion too).
        self._fd = os.open(path, os.O_RDONLY)

    def __del__(self) -> None:
        fd, self._fd = getattr(self, "_fd", None), None
        if fd is not None:
            os.close(fd)

    @property
    def ids(self) -> list[str]:
        """Node ids in line order."""
        return self._ids

    def row(self, node_id: str) -> int | None:
        if self._rows is None:
            self._rows = dict(zip(self._ids, range(len(self._ids))))
        return self._rows.get(node_id)

    def raw(self, row: int) -> bytes:
        """The JSON line of one node, newline included, checked against its CRC."""
        begin, end = int(self._offsets[row]), int(self._offsets[row + 1])
        line = os.pread(self._fd, end - begin, begin)
        if len(line) != end - begin:
            raise damaged(self.path, f"line {row + 1} (node {self._ids[row]!r}) ends after the "
                                     "file does: the file was cut short")
        if self._crcs is not None and zlib.crc32(line) != int(self._crcs[row]):
            raise damaged(self.path, f"line {row + 1} (node {self._ids[row]!r}) does not match "
                                     "the checksum recorded when the index was written")
        return line

    def node(self, row: int) -> Node:
        line = self.raw(row)
        try:
            node = Node.from_dict(json.loads(line))
        except (ValueError, TypeError) as exc:
            raise damaged(self.path, f"line {row + 1} is not a valid node record ({exc})") from exc
        if node.node_id != self._ids[row]:  # node_ids.json and the lines went out of step
            raise damaged(self.path.with_name("node_ids.json"), f"entry {row + 1} is "
                          f"{self._ids[row]!r} but line {row + 1} of nodes.jsonl holds node "
                          f"{node.node_id!r}")
        return node


    def copy_rows(self, first: int, last: int, out: Any) -> tuple[np.ndarray, np.ndarray]:
        """Append lines ``first..last-1`` to ``out`` inside the kernel (their bytes never enter
        this process); returns their end offsets relative to the copy's start, and their CRCs
        as recorded (so damage in them is still found in the next generation)."""
        begin, end = int(self._offsets[first]), int(self._offsets[last])
        copy_range(self._fd, begin, end - begin, out)
        ends = self._offsets[first + 1 : last + 1] - begin
        if self._crcs is not None:
            return ends, self._crcs[first:last]
        return ends, np.array([zlib.crc32(self.raw(r)) for r in range(first, last)], np.uint32)


Run = tuple[NodeFile, int, int]  # lines first..last-1 of a node file, copied as they are


def node_lines(node_ids: list[str], locate: Callable[[str], tuple[NodeFile, int] | None],
               encode: Callable[[str], bytes]) -> Iterator[bytes | Run]:
    """The lines to write for ``node_ids``: runs of the lines ``locate`` finds (a node file
    and line; None for a node added since), copied as they are, and the others encoded."""
    run = None
    for node_id in node_ids:
        found = locate(node_id)
        if found is not None:
            file, row = found
            if run is not None and run[0] is file and run[2] == row:
                run = (file, run[1], row + 1)
                continue
            if run is not None:
                yield run
            run = (file, row, row + 1)
            continue
        if run is not None:
            yield run
            run = None
        yield encode(node_id)
    if run is not None:
        yield run


def write_node_file(
    folder: Path, records: Iterable[bytes | Run], count: int
) -> tuple[np.ndarray, np.ndarray]:
    """Write ``count`` JSON lines to nodes.jsonl (each record is a line, or a run of lines of
    an existing file, copied), the offset of each to offsets.npy and the CRC-32 of each to
    node_crcs.npy; returns the offsets and CRCs."""
    offsets = np.zeros(count + 1, dtype=np.int64)
    crcs = np.zeros(count, dtype=np.uint32)
    with open(folder / "nodes.jsonl", "wb") as out:
        position = row = 0
        for record in records:
            if isinstance(record, tuple):
                source, first, last = record
                ends, sums = source.copy_rows(first, last, out)
                offsets[row + 1 : row + 1 + len(ends)] = position + ends
                crcs[row : row + len(ends)] = sums
                position, row = position + int(ends[-1]), row + len(ends)
                continue
            out.write(record)
            position += len(record)
            offsets[row + 1] = position
            crcs[row] = zlib.crc32(record)
            row += 1
    write_npy(folder / "offsets.npy", offsets)
    write_npy(folder / "node_crcs.npy", crcs)
    return offsets, crcs


def load_crcs(path: Path, *, nodes: int) -> np.ndarray | None:
    """node_crcs.npy, checked (None for folders written before it existed)."""
    if not path.exists():
        return None
    crcs = load_npy(path, "checksum")
    if crcs.shape != (nodes,) or crcs.dtype != np.uint32:
        raise damaged(path, f"expected {nodes} uint32 checksums, found shape {crcs.shape} "
                            f"of {crcs.dtype}")
    return crcs


def load_offsets(path: Path, *, nodes: int) -> np.ndarray:
    offsets = load_npy(path, "offsets")
    if offsets.ndim != 1 or offsets.shape[0] != nodes + 1 or offsets.dtype.kind not in "iu":
        raise IndexFormatError(
            f"{path}: expected {nodes + 1} integer offsets, found shape {offsets.shape} "
            f"of {offsets.dtype}"
        )
    return offsets


def check_columns(path: Path, data: Any) -> dict[str, Any]:
    """docs.json as loaded, checked: every column a list, all of one length."""
    if not isinstance(data, dict) or not all(isinstance(data.get(c), list) for c in COLUMNS):
        raise IndexFormatError(f"{path}: expected the columns {', '.join(COLUMNS)}")
    lengths = {len(data[c]) for c in COLUMNS}
    if len(lengths) != 1:
        raise IndexFormatError(f"{path}: columns have different lengths {sorted(lengths)}")
    if not all(type(c) is int and c >= 0 for c in data["node_counts"]):
        raise IndexFormatError(f"{path}: node_counts must be non-negative integers")
    return data
