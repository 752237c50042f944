"""Checked reads and writes of the single files in an index folder.

The document store (``index.node_file``) and the vector store (``stores.simple.persist``) read
their files through these, so a missing or damaged file is always an ``IndexFormatError`` that
names the file and says what is wrong with it. ``index.folder`` handles the folder as a whole (the
manifest, atomic replace); this module knows nothing about what the files hold.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .errors import IndexFormatError


def missing(path: Path) -> IndexFormatError:
    return IndexFormatError(f"{path}: file is missing; the index is incomplete")


def read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError as exc:
        raise missing(path) from exc


def read_json(path: Path) -> Any:
    raw = read_bytes(path)
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise IndexFormatError(
            f"{path}: damaged JSON ({exc}); the index is damaged: rebuild it"
        ) from exc


def write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, ensure_ascii=False, default=str), encoding="utf-8")


def file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError as exc:
        raise missing(path) from exc


def load_npy(path: Path, what: str, *, mmap_min_bytes: int | None = None) -> np.ndarray:
    """``np.load`` without pickles; memory-mapped when the file is over ``mmap_min_bytes``."""
    try:
        large = mmap_min_bytes is not None and path.stat().st_size > mmap_min_bytes
        return np.load(path, allow_pickle=False, mmap_mode="r" if large else None)
    except FileNotFoundError as exc:
        raise missing(path) from exc
    except (OSError, ValueError, EOFError) as exc:  # EOFError: an empty or cut-off file
        raise IndexFormatError(
            f"{path}: not a readable .npy {what} file ({exc}); the index is damaged: rebuild it"
        ) from exc


def write_npy(path: Path, array: np.ndarray) -> None:
    with open(path, "wb") as out:
        np.lib.format.write_array(out, np.ascontiguousarray(array), allow_pickle=False)


def copy_range(source: int, offset: int, length: int, out: Any) -> None:
    """Append ``length`` bytes of the open file ``source`` (a descriptor) from ``offset`` to the
    file object ``out``, inside the kernel where it can: nothing passes through this process's
    memory, so copying a big file forward costs no resident memory."""
    out.flush()
    target, position, end = out.fileno(), out.tell(), offset + length
    try:
        while offset < end:
            copied = os.copy_file_range(source, target, end - offset, offset, position)
            if copied == 0:
                raise IndexFormatError(f"a file being copied ended {end - offset} bytes early; "
                                       "the index is damaged: rebuild it")
            offset, position = offset + copied, position + copied
    except (AttributeError, OSError) as exc:  # no copy_file_range here: copy a block at a time
        if isinstance(exc, IndexFormatError):
            raise
        while offset < end:
            block = os.pread(source, min(end - offset, 1 << 20), offset)
            if not block:
                raise IndexFormatError("a file being copied ended early; rebuild the index")
            os.pwrite(target, block, position)
            offset, position = offset + len(block), position + len(block)
    out.seek(position)
