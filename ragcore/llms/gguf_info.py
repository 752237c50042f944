"""What a GGUF file says about its model: architecture, name, trained context length.

A GGUF file opens with a header (magic ``GGUF``, version, tensor count, key count) and then its
metadata as typed key/value pairs; this reads that metadata and stops before the tensors, so it
costs a few kilobytes of I/O, not the gigabyte behind it. Only scalar and string values are kept
(arrays such as the tokenizer's vocabulary are skipped). The local backend reads the context
length from here (``ARCH.context_length``) and caps its window to it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ..errors import LLMError

# GGUF value types (gguf.GGUFValueType): scalar struct formats, 8 = string, 9 = array.
_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q",
            12: "d"}
_STRING, _ARRAY = 8, 9


@dataclass(slots=True, frozen=True)
class GGUFInfo:
    """The metadata of one GGUF file (scalar and string values only)."""

    path: Path
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name", self.path.stem))

    @property
    def context_length(self) -> int | None:
        """Tokens the model was trained to read (``ARCH.context_length``), if stated."""
        value = self.metadata.get(f"{self.architecture}.context_length")
        return int(value) if isinstance(value, int) else None

    @property
    def has_chat_template(self) -> bool:
        return "tokenizer.chat_template" in self.metadata


def read_gguf_info(path: str | Path) -> GGUFInfo:
    """The metadata of the GGUF file at ``path``; LLMError if it is not a GGUF file."""
    path = Path(path)
    try:
        with path.open("rb") as file:
            if file.read(4) != b"GGUF":
                raise LLMError(f"{path} is not a GGUF model file (it does not start with 'GGUF')")
            version, _tensors, keys = struct.unpack("<IQQ", _exactly(file, 20))
            if version < 2:
                raise LLMError(f"{path} is GGUF version {version}; version 2 or later is needed")
            metadata: dict[str, Any] = {}
            for _ in range(keys):
                key = _string(file)
                value = _value(file, struct.unpack("<I", _exactly(file, 4))[0])
                if value is not _SKIPPED:
                    metadata[key] = value
    except (OSError, struct.error, UnicodeDecodeError) as exc:
        raise LLMError(f"cannot read the model file {path}: {exc}") from exc
    return GGUFInfo(path, metadata)


_SKIPPED = object()


def _exactly(file: BinaryIO, size: int) -> bytes:
    data = file.read(size)
    if len(data) != size:
        raise struct.error(f"the file ends inside its metadata (wanted {size} bytes)")
    return data


def _string(file: BinaryIO) -> str:
    (length,) = struct.unpack("<Q", _exactly(file, 8))
    return _exactly(file, length).decode("utf-8")


def _value(file: BinaryIO, kind: int) -> Any:
    if kind in _SCALARS:
        fmt = "<" + _SCALARS[kind]
        return struct.unpack(fmt, _exactly(file, struct.calcsize(fmt)))[0]
    if kind == _STRING:
        return _string(file)
    if kind == _ARRAY:
        item_kind, count = struct.unpack("<IQ", _exactly(file, 12))
        if item_kind in _SCALARS:  # skip the block at once: a vocabulary has 150k entries
            file.seek(struct.calcsize("<" + _SCALARS[item_kind]) * count, 1)
        else:
            for _ in range(count):
                _value(file, item_kind)
        return _SKIPPED
    raise struct.error(f"unknown GGUF value type {kind}")
