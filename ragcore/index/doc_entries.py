"""What a docstore knows about each document, in memory: ``DocInfo`` (the public record) and
``DocEntry`` (one document as the docstore holds it, metadata left as JSON text until read),
built from ``docs.json``'s columns on first use (``entries_from_columns``)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ..errors import IndexFormatError
from .disk.node_file import COLUMNS


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(slots=True)
class DocInfo:
    """What the index knows about one source document."""

    doc_id: str
    hash: str | None  # None for documents only known through their nodes
    metadata: dict[str, Any] = field(default_factory=dict)
    node_ids: list[str] = field(default_factory=list)
    characters: int = 0
    indexed_at: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "hash": self.hash,
            "metadata": self.metadata,
            "node_ids": self.node_ids,
            "characters": self.characters,
            "indexed_at": self.indexed_at,
        }


class DocEntry:
    """One document in memory; metadata stays JSON text until someone reads it."""

    __slots__ = ("hash", "meta", "node_ids", "characters", "indexed_at")

    def __init__(
        self, hash: str | None, meta: dict[str, Any] | str, node_ids: list[str], characters: int,
        indexed_at: str,
    ) -> None:
        self.hash = hash
        self.meta = meta
        self.node_ids = node_ids
        self.characters = characters
        self.indexed_at = indexed_at

    def metadata(self) -> dict[str, Any]:
        if isinstance(self.meta, str):
            try:
                self.meta = json.loads(self.meta)
            except ValueError as exc:
                raise IndexFormatError(
                    f"docs.json: a document's metadata is damaged JSON ({exc}); rebuild the index"
                ) from exc
        return self.meta  # type: ignore[return-value]

    def metadata_text(self) -> str:
        if isinstance(self.meta, str):
            return self.meta
        return json.dumps(self.meta, ensure_ascii=False, default=str)


def entries_from_columns(
    columns: dict[str, Any], file_ids: list[str]
) -> tuple[dict[str, DocEntry], list[str]]:
    """Per-document entries from docs.json's columns; each takes the next node_counts ids."""
    entries: dict[str, DocEntry] = {}
    position = 0
    rows = zip(*(columns.get(c, []) for c in COLUMNS))
    for doc_id, doc_hash, count, characters, indexed_at, meta in rows:
        ids = file_ids[position : position + count]
        entries[doc_id] = DocEntry(doc_hash, meta, ids, characters, indexed_at)
        position += count
    return entries, file_ids[position:]
