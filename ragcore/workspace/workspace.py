"""``Workspace``: named indexes, uploaded originals, settings and saved chats in one folder.

    <root>/settings.json          user settings (no API key unless asked)
    <root>/indexes/<name>/        an index folder written by VectorStoreIndex.persist
    <root>/indexes/<name>.json    the index's workspace record: embedding model choice, chunking
    <root>/uploads/<name>/        uploaded originals, sanitized names
    <root>/chats/<id>.json        saved chats

The CLI and the app share it. Every path it writes is checked to stay inside the root. Ingesting
files (with per-file reports) lives in the sibling ``ingest``; this module names and moves things.
"""

from __future__ import annotations

import os
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from ..embeddings.base import Embedder
from ..errors import WorkspaceError
from .chats import ChatStore, ChatSummary, SavedChat, now_iso
from .files import (
    exclusive_lock,
    inside,
    read_json,
    sanitize_filename,
    validate_name,
    write_bytes_atomic,
    write_json_atomic,
)
from .record import IndexInfo, IndexRecord, count_index_tokens
from .report import IngestCallback, IngestReport
from .settings import SETTINGS_FILE, Settings, load_settings, save_settings

if TYPE_CHECKING:
    from ..index import VectorStoreIndex

WORKSPACE_ENV = "RAGCORE_WORKSPACE"
DEFAULT_ROOT = "workspace"


def default_root() -> Path:
    """$RAGCORE_WORKSPACE, else ./workspace."""
    return Path(os.environ.get(WORKSPACE_ENV) or DEFAULT_ROOT)


class Workspace:
    """Named indexes, uploads, settings and chats under one root folder.

    ``embedder`` overrides the embedding model every index would otherwise get from its record
    (tests and benchmarks pass a FakeEmbedder); an index built with another model is refused.
    ``settings`` are the session's settings (they may hold an API key that is never saved);
    without them the saved settings are used.
    """

    def __init__(
        self,
        root: str | Path | None = None,
        *,
        embedder: Embedder | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.root = Path(root if root is not None else default_root()).expanduser().resolve()
        if self.root.exists() and not self.root.is_dir():
            raise WorkspaceError(f"workspace {self.root} is a file: choose a folder")
        self.embedder_override = embedder
        self._session_settings = settings
        self.chats = ChatStore(self.root / "chats")

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # -- paths -------------------------------------------------------------------------------

    def index_path(self, name: str) -> Path:
        return inside(self.root, self.root / "indexes" / validate_name(name))

    def record_path(self, name: str) -> Path:
        return inside(self.root, self.root / "indexes" / f"{validate_name(name)}.json")

    def upload_dir(self, name: str) -> Path:
        return inside(self.root, self.root / "uploads" / validate_name(name))

    def writing(self) -> AbstractContextManager[None]:
        """The workspace's write lock: changes to indexes happen one at a time."""
        return exclusive_lock(self.root / ".write.lock")

    # -- settings ----------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        """The session's settings if given, else those saved in the workspace."""
        return self._session_settings or self.load_settings()

    def load_settings(self) -> Settings:
        return load_settings(self.root / SETTINGS_FILE)

    def save_settings(self, settings: Settings) -> None:
        """Save settings (the API key only if ``save_api_key``) and use them for this session."""
        save_settings(inside(self.root, self.root / SETTINGS_FILE), settings)
        self._session_settings = settings

    def use_settings(self, settings: Settings) -> None:
        """Use settings for this session without saving them (e.g. an API key for now only)."""
        self._session_settings = settings

    # -- indexes -----------------------------------------------------------------------------

    def index_names(self) -> list[str]:
        folder = self.root / "indexes"
        if not folder.is_dir():
            return []
        names = {p.stem for p in folder.glob("*.json")} | {p.name for p in folder.iterdir()
                                                           if p.is_dir()}
        return sorted(n for n in names if _valid(n))

    def has_index(self, name: str) -> bool:
        return self.record_path(name).exists() or self.index_path(name).is_dir()

    def _require(self, name: str) -> None:
        if not self.has_index(name):
            known = ", ".join(self.index_names()) or "none yet"
            raise WorkspaceError(
                f"no index named {name!r} in {self.root} (indexes: {known}); "
                "create it by ingesting files into it"
            )

    def record(self, name: str) -> IndexRecord:
        """The index's workspace record (made from the index itself if the file is missing)."""
        path = self.record_path(name)
        if path.exists():
            return IndexRecord.from_dict(read_json(path, what="index record"), path)
        self._require(name)
        index = self._load_raw(name)
        embedding = _embedding_choice(self.settings)
        stats = index.stats()
        return IndexRecord(embedding, index.embed_model_name, None, None,
                           str(stats.get("created", "")), str(stats.get("updated", "")))

    def save_record(self, name: str, record: IndexRecord) -> None:
        write_json_atomic(self.record_path(name), record.to_dict())

    def create_index(
        self,
        name: str,
        *,
        settings: Settings | None = None,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
    ) -> IndexInfo:
        """Create an empty index whose embedding model and chunking come from ``settings``."""
        with self.writing():
            self._create_index(name, settings=settings, chunk_size=chunk_size,
                               chunk_overlap=chunk_overlap)
        return self.index_info(name)

    def _create_index(self, name: str, *, settings: Settings | None, chunk_size: int | None,
                      chunk_overlap: int | None) -> None:
        if self.has_index(name):
            raise WorkspaceError(f"an index named {name!r} already exists: pick another name")
        settings = settings or self.settings
        embedder = self.embedder_override or _embedder_for(settings)
        chunk_size = chunk_size if chunk_size is not None else settings.chunk_size
        chunk_overlap = chunk_overlap if chunk_overlap is not None else settings.chunk_overlap
        _check_chunking(chunk_size, chunk_overlap)
        stamp = now_iso()
        record = IndexRecord(_embedding_choice(settings), embedder.model_name, chunk_size,
                             chunk_overlap, stamp, stamp)
        self.save_record(name, record)

    def embedder_for(self, name: str) -> Embedder:
        """The embedder an index must be queried and extended with."""
        record = self.record(name)
        embedder = self.embedder_override
        if embedder is None:
            embedder = _embedder_for(Settings(**record.embedding)) if record.embedding \
                else _embedder_for(self.settings)
        if record.embed_model and embedder.model_name != record.embed_model:
            raise WorkspaceError(
                f"index {name!r} was built with the embedding model {record.embed_model!r}, "
                f"but {embedder.model_name!r} is configured: vectors of different models cannot "
                "be compared. Switch back, or create a new index with this model and ingest "
                "the files again (re-indexing)"
            )
        return embedder

    def change_embedding(self, name: str, settings: Settings) -> None:
        """Give an empty index another embedding model; refused once it holds documents."""
        with self.writing():
            self._change_embedding(name, settings)

    def _change_embedding(self, name: str, settings: Settings) -> None:
        record = self.record(name)
        new_choice = _embedding_choice(settings)
        if new_choice == record.embedding:
            return
        documents = len(self._load_raw(name).ref_doc_ids()) if self.index_path(name).is_dir() \
            else 0
        if documents:
            raise WorkspaceError(
                f"index {name!r} holds {documents} document(s) embedded with "
                f"{record.embed_model!r}; changing its embedding model needs re-indexing. "
                f"Create a new index with the new model and ingest the files again"
            )
        embedder = self.embedder_override or _embedder_for(settings)
        record.embedding, record.embed_model = new_choice, embedder.model_name
        record.updated = now_iso()
        self.save_record(name, record)

    def _load_raw(self, name: str, embedder: Embedder | None = None) -> VectorStoreIndex:
        from ..index import VectorStoreIndex

        return VectorStoreIndex.load(self.index_path(name), embedder=embedder)

    def load_index(self, name: str) -> VectorStoreIndex:
        """The named index, ready to query with the embedding model it was built with."""
        self._require(name)
        embedder = self.embedder_for(name)
        if not self.index_path(name).is_dir():
            from ..index import VectorStoreIndex

            return VectorStoreIndex([], embedder=embedder)
        return self._load_raw(name, embedder)

    def index_info(self, name: str) -> IndexInfo:
        """Stats of one index (its token count is computed once per change and cached)."""
        self._require(name)
        record = self.record(name)
        folder = self.index_path(name)
        stats: dict[str, Any] = {"tokens": 0}
        files = 0
        if folder.is_dir():
            index = self._load_raw(name)
            stats = index.stats()
            files = len(_files_of(index))
            stats["tokens"] = self._cached_tokens(name, record, index, str(stats["updated"]))
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) \
            if folder.is_dir() else 0
        return IndexInfo(
            name=name, files=files, documents=int(stats.get("documents", 0)),
            nodes=int(stats.get("nodes", 0)), tokens=stats.get("tokens"),
            bytes_on_disk=size, embed_model=record.embed_model or str(stats.get("model", "")),
            chunk_size=record.chunk_size, chunk_overlap=record.chunk_overlap,
            created=record.created or str(stats.get("created", "")),
            updated=str(stats.get("updated") or record.updated),
        )

    def _cached_tokens(self, name: str, record: IndexRecord, index: VectorStoreIndex,
                       stamp: str) -> int:
        if record.tokens is None or record.tokens_at != stamp:
            record.tokens, record.tokens_at = count_index_tokens(index), stamp
            if self.record_path(name).exists():
                self.save_record(name, record)
        return record.tokens

    def list_indexes(self) -> list[IndexInfo]:
        """Every index with its stats, by name."""
        return [self.index_info(name) for name in self.index_names()]

    def rename_index(self, old: str, new: str) -> None:
        """Rename an index with its record and uploads; refuses to overwrite another index."""
        with self.writing():
            self._require(old)
            if self.has_index(new):
                raise WorkspaceError(f"an index named {new!r} already exists: pick another name")
            for source, target in (
                (self.index_path(old), self.index_path(new)),
                (self.record_path(old), self.record_path(new)),
                (self.upload_dir(old), self.upload_dir(new)),
            ):
                if source.exists():
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(source, target)

    def delete_index(self, name: str) -> None:
        """Delete an index, its record and its uploaded originals."""
        with self.writing():
            self._require(name)
            for path in (self.index_path(name), self.upload_dir(name)):
                if path.is_dir():
                    shutil.rmtree(path)
            self.record_path(name).unlink(missing_ok=True)

    # -- uploads and documents ---------------------------------------------------------------

    def save_upload(self, index: str, filename: str, data: bytes) -> Path:
        """Store an uploaded file under ``uploads/<index>/`` with a sanitized name.

        The same name overwrites the earlier upload, so ingesting it again updates the index.
        """
        folder = self.upload_dir(index)
        target = inside(self.root, folder / sanitize_filename(filename))
        if target.parent != folder:
            raise WorkspaceError(f"upload name {filename!r} is not a plain file name")
        write_bytes_atomic(target, bytes(data))
        return target

    def ingest(
        self,
        name: str,
        paths: Iterable[str | Path],
        *,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        progress: IngestCallback | None = None,
    ) -> IngestReport:
        """Read, split, embed and add files (or folders) to an index, creating it if needed.

        A file seen before is updated in place if it changed and skipped if not; a file that
        cannot be read is reported with the reason while the others are indexed.
        """
        from .ingest import ingest_into

        with self.writing():
            if not self.has_index(name):
                self._create_index(name, settings=None, chunk_size=chunk_size,
                                   chunk_overlap=chunk_overlap)
            return ingest_into(self, name, list(paths), chunk_size=chunk_size,
                               chunk_overlap=chunk_overlap, progress=progress)

    def delete_document(self, name: str, doc_id_or_file: str) -> list[str]:
        """Remove a document (or every document of a file) from the index; returns their ids."""
        from .ingest import delete_documents

        with self.writing():
            self._require(name)
            return delete_documents(self, name, doc_id_or_file)

    def reindex_document(self, name: str, doc_id_or_file: str) -> IngestReport:
        """Read a document's file again and re-embed it even if it did not change."""
        from .ingest import reindex

        with self.writing():
            self._require(name)
            return reindex(self, name, doc_id_or_file)

    def documents(self, name: str) -> list[dict[str, Any]]:
        """One row per file of an index: file, path, documents (pages), chunks, doc ids."""
        self._require(name)
        return _files_of(self._load_raw(name)) if self.index_path(name).is_dir() else []

    # -- chats -------------------------------------------------------------------------------

    def save_chat(self, chat: SavedChat) -> Path:
        return self.chats.save(chat)

    def list_chats(self, *, index: str | None = None) -> list[ChatSummary]:
        chats = self.chats.list()
        return [c for c in chats if index is None or c.index == index]

    def has_chat(self, chat_id: str) -> bool:
        return self.chats.exists(chat_id)

    def load_chat(self, chat_id: str) -> SavedChat:
        return self.chats.load(chat_id)

    def delete_chat(self, chat_id: str) -> None:
        self.chats.delete(chat_id)


def _valid(name: str) -> bool:
    try:
        validate_name(name)
    except WorkspaceError:
        return False
    return True


def _check_chunking(chunk_size: int | None, chunk_overlap: int | None) -> None:
    from .settings import parse_settings

    parse_settings({"chunk_size": chunk_size, "chunk_overlap": chunk_overlap},
                   source="chunking options")


def _embedding_choice(settings: Settings) -> dict[str, Any]:
    from .backends import embedding_choice

    return embedding_choice(settings)


def _embedder_for(settings: Settings) -> Embedder:
    from .backends import embedder_from_settings

    return embedder_from_settings(settings)


def _files_of(index: VectorStoreIndex) -> list[dict[str, Any]]:
    from .ingest import files_of

    return files_of(index)


__all__: Sequence[str] = ("IndexInfo", "IndexRecord", "Workspace", "default_root")
