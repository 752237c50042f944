"""The record the workspace keeps beside each index folder (``indexes/<name>.json``).

``IndexRecord`` holds what the index itself does not: an id that no later index of the same
name shares, the embedding model choice the index is bound to, its chunking, dates, and the
counts that need the whole index (files, tokens), cached with the index revision they were
counted at. ``IndexVersion`` names one state of an index for caches. The stats users see are
made from this record and the index manifest in the sibling ``stats``.

``store`` is where the index keeps its vectors (a ``ragcore.stores.locations`` text, never with a
password; empty for the index folder itself). ``with_store`` makes a new index over a database
store: it opens the store (its own Chroma collection or Postgres table, named from the index
name and uid) and writes the empty index folder whose manifest reopens it; ``drop_store`` drops
that collection or table when the index is deleted.
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import WorkspaceError
from .files import read_json, write_json_atomic

if TYPE_CHECKING:
    from ..embeddings.base import Embedder

RECORD_FORMAT = "ragcore-workspace-index"
log = logging.getLogger(__name__)


@dataclass(slots=True)
class IndexRecord:
    """The workspace's own facts about an index, kept beside the index folder."""

    embedding: dict[str, Any]
    embed_model: str
    chunk_size: int | None
    chunk_overlap: int | None
    created: str
    updated: str
    uid: str = ""  # made once per index; a deleted index's successor of the same name differs
    files: int | None = None
    tokens: int | None = None
    counted_revision: int | None = None  # the index revision ``files`` and ``tokens`` are of
    display_name: str = ""  # the name as the person typed it (spaces, accents); see ``names``
    store: str = ""  # where the vectors are: a store location ("" = the index folder)

    def counts_at(self, revision: int | None) -> tuple[int, int] | None:
        """(files, tokens) if they were counted at ``revision``, else None (count again)."""
        if revision is None or revision != self.counted_revision:
            return None
        if self.files is None or self.tokens is None:
            return None
        return self.files, self.tokens

    def to_dict(self) -> dict[str, Any]:
        return {"format": RECORD_FORMAT, "version": 1, "uid": self.uid,
                "embedding": self.embedding, "embed_model": self.embed_model,
                "chunk_size": self.chunk_size, "chunk_overlap": self.chunk_overlap,
                "created": self.created, "updated": self.updated, "files": self.files,
                "tokens": self.tokens, "counted_revision": self.counted_revision,
                "store": self.store, "display_name": self.display_name}

    @classmethod
    def from_dict(cls, data: dict[str, Any], path: Path) -> IndexRecord:
        if not isinstance(data, dict) or data.get("format") != RECORD_FORMAT:
            raise WorkspaceError(f"{path} is not a ragcore index record; delete or restore it")
        revision = data.get("counted_revision")  # records written before revisions lack it
        return cls(data.get("embedding") or {}, str(data.get("embed_model", "")),
                   data.get("chunk_size"), data.get("chunk_overlap"),
                   str(data.get("created", "")), str(data.get("updated", "")),
                   uid=str(data.get("uid", "")), files=data.get("files"),
                   tokens=data.get("tokens"),
                   counted_revision=revision if isinstance(revision, int) else None,
                   store=str(data.get("store") or ""),
                   display_name=str(data.get("display_name") or ""))


class IndexVersion(NamedTuple):
    """One state of an index on disk: what caches of a loaded index or its pictures key on.

    The revision moves on every change the index persists; the uid tells an index from a
    deleted one of the same name; the model changes when an empty index switches models.
    """

    uid: str
    embed_model: str
    revision: int | None


def new_uid() -> str:
    return secrets.token_hex(8)


def read_record(path: Path) -> IndexRecord:
    return IndexRecord.from_dict(read_json(path, what="index record"), path)


def write_record(path: Path, record: IndexRecord) -> None:
    write_json_atomic(path, record.to_dict())


def with_store(record: IndexRecord, location: str | None, folder: Path, name: str,
               embedder: Embedder) -> IndexRecord:
    """``record`` for a new index over the store at ``location`` (None or "": the default).

    For a database store the empty index is written to ``folder`` now, so every later load
    reconnects from its manifest; a store that cannot be reached fails here, before the index
    exists.
    """
    from ..index import VectorStoreIndex
    from ..stores.locations import open_location, parse_location

    parsed = parse_location(location)
    if parsed is None:
        return record
    store = open_location(parsed, name, record.uid)
    VectorStoreIndex(store=store, embedder=embedder).persist(folder)
    record.store = str(parsed)
    return record


def drop_store(folder: Path) -> None:
    """Drop the database collection or table the index in ``folder`` keeps its vectors in
    (nothing for the index folder's own store). A database that cannot be reached is logged
    with what is left behind, and does not stop the deletion of the index."""
    from ..errors import RagcoreError
    from ..index.disk.manifest import manifest_store, peek_manifest
    from ..stores.registry import open_vector_store

    manifest = peek_manifest(folder)
    if manifest is None or (manifest.get("store") or {}).get("type") == "SimpleVectorStore":
        return
    try:
        spec = manifest_store(folder, manifest)
        store = open_vector_store(spec, folder)
        drop = getattr(store, "drop", None)
        if drop is not None:
            drop()
    except RagcoreError as exc:
        log.warning("%s: the index is deleted but its vectors could not be dropped (%s); drop "
                    "them with the database's own tools: %s", folder, exc,
                    (manifest.get("store") or {}).get("settings"))
