"""One workspace index opened for a change: the loaded index, its record, where both are saved.

``Workspace`` opens a handle under its write lock and passes it to ``ingest``, which refreshes
files in ``handle.index`` and calls ``save`` when the index revision moved. A handle knows paths,
not the workspace, so the modules depend one way: workspace -> ingest -> handle -> record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .chats import now_iso
from .record import IndexRecord, write_record

if TYPE_CHECKING:
    from ..embeddings.base import Embedder
    from ..index import VectorStoreIndex

UPLOAD_PREFIX = "upload:"
MANIFEST = "manifest.json"  # the file a saved index folder is known by (ragcore.index.disk.manifest)


def saved(folder: Path) -> bool:
    """Whether an index was ever saved in ``folder``: a kill during the very first save leaves
    a folder without a manifest, which holds no index yet (the next save replaces it)."""
    return (folder / MANIFEST).is_file()


@dataclass(slots=True, frozen=True)
class IndexHandle:
    """A workspace index open for a change, with the chunking options this change asked for."""

    name: str
    index: VectorStoreIndex
    record: IndexRecord
    folder: Path | None  # where the index is persisted (None: in the database, which commits)
    record_path: Path | None  # None: the record is the database catalog's
    uploads: Path  # resolved; files inside get the id base "upload:<relative path>"
    chunking: tuple[int | None, int | None] = (None, None)  # chunk size and overlap to record
    max_file_bytes: int | None = None  # larger files are reported, not ingested

    def id_base(self, path: Path) -> str:
        """``upload:<relative name>`` inside the upload folder, else the resolved path."""
        resolved = path.resolve()
        if self.uploads in resolved.parents:
            return UPLOAD_PREFIX + resolved.relative_to(self.uploads).as_posix()
        return str(resolved)

    def upload_of(self, key: str) -> Path | None:
        """Where an uploaded file's original is kept (None for a file ingested from a path)."""
        if not key.startswith(UPLOAD_PREFIX):
            return None
        return self.uploads / key[len(UPLOAD_PREFIX):]

    def saved(self) -> bool:
        """Whether the index was ever saved (an index in the database always was)."""
        return self.folder is None or saved(self.folder)

    def save(self) -> None:
        """Persist the index and note the change (and any new chunking) in its record."""
        self.index.persist(self.folder)
        if self.record_path is None:
            return
        chunk_size, chunk_overlap = self.chunking
        if chunk_size is not None:
            self.record.chunk_size = chunk_size
        if chunk_overlap is not None:
            self.record.chunk_overlap = chunk_overlap
        self.record.updated = now_iso()
        write_record(self.record_path, self.record)


def open_index(folder: Path, embedder: Embedder, record: IndexRecord, *,
               chunking: tuple[int | None, int | None] = (None, None)) -> VectorStoreIndex:
    """The index in ``folder`` (empty if none), splitting with the given or recorded chunking."""
    from ..index import VectorStoreIndex

    splitter = splitter_for(record, chunking)
    if saved(folder):
        return VectorStoreIndex.load(folder, embedder=embedder, splitter=splitter)
    return VectorStoreIndex(embedder=embedder, splitter=splitter)


def splitter_for(record: IndexRecord, chunking: tuple[int | None, int | None]) -> Any:
    """A ``SentenceSplitter`` with the chunk size and overlap asked for, else the record's."""
    from ..chunking import SentenceSplitter

    size = chunking[0] if chunking[0] is not None else record.chunk_size
    overlap = chunking[1] if chunking[1] is not None else record.chunk_overlap
    options = {k: v for k, v in (("chunk_size", size), ("chunk_overlap", overlap)) if v is not None}
    return SentenceSplitter(**options)
