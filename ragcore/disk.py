"""Checked reads and writes of the single files in an index folder.

The document store (``index.node_file``) and the vector store (``stores.simple_persist``) read
their files through these, so a missing or damaged file is always an ``IndexFormatError`` that
names the file and says what is wrong with it. ``index.folder`` handles the folder as a whole (the
manifest, atomic replace); this module knows nothing about what the files hold.
"""

from __future__ import annotations

import json
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
