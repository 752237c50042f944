"""Checksums of the files of an index generation: recorded at commit, verified at load.

Every file a generation holds is recorded in its manifest as ``{"bytes": size, "crc32": [...]}``
with one CRC-32 per 1 MiB block. Loading checks every file's size, every block of files up to
``EAGER_BLOCKS`` blocks, and a sample of blocks (the first, the last and two at random) of
larger ones, so opening a 100k-node index stays in tens of milliseconds; ``full``
(``ragcore verify``) checks every block. ``nodes.jsonl`` needs no blocks at load at all: each of
its lines carries its own CRC in ``node_crcs.npy``, checked when the node is decoded
(``node_file``). CRC-32 (zlib) finds the damage disks and editors do, at several hundred MB/s;
it is no defence against someone forging a file, which nothing in a folder could be.
"""

from __future__ import annotations

import os
import random
import zlib
from pathlib import Path
from typing import Any

from ...errors import IndexFormatError

BLOCK = 1 << 20
EAGER_BLOCKS = 8  # files of up to 8 MiB are checked whole at every load
LAZY_FILES = ("nodes.jsonl",)  # checked line by line as nodes are decoded (node_crcs.npy)
FIX = (
    "the index is damaged: run `ragcore verify` for a full check, then rebuild the index from "
    "its documents (re-ingest them) or restore a backup of the folder"
)


def damaged(path: Path | str, what: str) -> IndexFormatError:
    """The error for a file whose content is not what its generation recorded."""
    return IndexFormatError(f"{path}: {what}; {FIX}")


def record_file(path: Path) -> dict[str, Any]:
    """A file's size and the CRC-32 of each of its blocks."""
    crcs: list[int] = []
    size = 0
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            crcs.append(zlib.crc32(block))
            size += len(block)
    return {"bytes": size, "crc32": crcs}


def record_files(
    folder: Path, names: list[str], *, known: dict[str, tuple[int, Any]] | None = None
) -> dict[str, dict[str, Any]]:
    """The records of ``names`` in ``folder``, by name; a file whose name and inode are in
    ``known`` (name -> (inode, record): a hard link to a recorded file) is not read again."""
    known = known or {}
    records = {}
    for name in sorted(names):
        inode, record = known.get(name, (None, None))
        same = inode is not None and os.stat(folder / name).st_ino == inode
        records[name] = record if same else record_file(folder / name)
    return records


def tree_files(folder: Path) -> list[str]:
    """The files under ``folder``, as paths relative to it ("a/b.npy")."""
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def verify_files(folder: Path, files: Any, *, full: bool = False) -> None:
    """Check the files of a generation against their records (IndexFormatError at the first
    mismatch, naming the file); ``full`` reads every block of every file."""
    if not isinstance(files, dict):
        raise damaged(folder.parent / "manifest.json", "'files' is missing or not an object")
    for name, record in files.items():
        lazy = name in LAZY_FILES and not full
        verify_file(folder / name, record, full=full, sizes_only=lazy, name=name)


def verify_file(
    path: Path, record: Any, *, full: bool, sizes_only: bool = False, name: str = ""
) -> None:
    size, crcs = _parse_record(path, record, name or path.name)
    try:
        actual = path.stat().st_size
    except FileNotFoundError as exc:
        raise damaged(path, "file is missing") from exc
    if actual != size:
        raise damaged(path, f"is {actual} bytes but {size} were written")
    if sizes_only:
        return
    blocks = range(len(crcs)) if full or len(crcs) <= EAGER_BLOCKS else _sample(len(crcs))
    with open(path, "rb") as handle:
        for block in blocks:
            handle.seek(block * BLOCK)
            if zlib.crc32(handle.read(BLOCK)) != crcs[block]:
                start = block * BLOCK
                raise damaged(path, f"bytes {start}-{min(start + BLOCK, size)} do not match "
                                    "the checksum recorded when the index was written")


def _parse_record(path: Path, record: Any, name: str) -> tuple[int, list[int]]:
    size = record.get("bytes") if isinstance(record, dict) else None
    crcs = record.get("crc32") if isinstance(record, dict) else None
    blocks = -(-size // BLOCK) if type(size) is int and size >= 0 else -1
    if not isinstance(crcs, list) or len(crcs) != blocks:
        generation = path.parents[len(Path(name).parts) - 1]  # ``name`` may be "a/b.npy"
        raise damaged(generation.parent / "manifest.json",
                      f"the record of {name} is not a size with one checksum per block")
    return size, crcs  # type: ignore[return-value]


def _sample(blocks: int) -> list[int]:
    """The first and last block and two at random (each load looks at other ones)."""
    return sorted({0, blocks - 1, random.randrange(blocks), random.randrange(blocks)})
