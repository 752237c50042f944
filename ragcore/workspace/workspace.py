"""``Workspace``: named indexes, uploaded originals, settings and saved chats in one folder.

    <root>/settings.json          user settings (no API key unless asked)
    <root>/indexes/<name>/        an index folder written by VectorStoreIndex.persist
    <root>/indexes/<name>.json    the index's record: uid, shown name, embedding model, chunking
    <root>/uploads/<name>/        uploaded originals, sanitized names
    <root>/chats/<id>.json        saved chats, naming their index's folder and uid (``chats_pg``)
    <root>/.locks/<name>.lock     each index's write lock (a file lock: threads and processes)
    <root>/jobs/<id>.json         the journal of background ingest/re-index/delete jobs (``jobs``)

An index's folder ``<name>`` is chosen when it is made and never moves (a rename changes the
shown name in its record: ``names``); the record's uid tells it from a later index of the same
folder. Every change to one index happens under its write lock (``writing(name)``). Indexes
kept in Postgres (``database_indexes``) are listed and opened beside the folder's.
"""
from __future__ import annotations

import os
import shutil
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from ..embeddings.base import Embedder
from ..embeddings.packaged import same_model_variant
from ..errors import WorkspaceError
from .ingest.commits import Batching
from .chats import ChatSummary, SavedChat, now_iso
from .chats_pg import open_chats
from .files import exclusive_lock, inside, upload_name, validate_name, write_bytes_atomic
from .database_indexes import DATABASE, DatabaseIndexes, database_url, default_store
from .handle import IndexHandle, open_index, saved
from .ingest.index_files import files_of, ingest_files, remove_documents, scan_inputs, source_files
from .record import (IndexRecord, IndexVersion, drop_store, new_uid, read_record, with_store,
                     write_record)
from .ingest.report import IngestCallback, IngestReport
from .settings import SETTINGS_FILE, Settings, load_settings, parse_settings, save_settings
from .stats import IndexInfo, describe_index, read_facts

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
        self.chats = open_chats(self.root)  # files, or rows of $RAGCORE_DATABASE_URL
        url = database_url()  # indexes kept in the database, beside the folder's
        self.database = DatabaseIndexes(url) if url else None

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    # -- paths -------------------------------------------------------------------------------

    def index_path(self, name: str) -> Path:
        return inside(self.root, self.root / "indexes" / validate_name(name))

    def record_path(self, name: str) -> Path:
        return inside(self.root, self.root / "indexes" / f"{validate_name(name)}.json")

    def upload_dir(self, name: str) -> Path:
        return inside(self.root, self.root / "uploads" / validate_name(name))

    def writing(self, name: str | None = None, *,
                wait: bool = True) -> AbstractContextManager[bool]:
        """Index ``name``'s write lock (threads and processes): its changes go one at a time,
        other indexes change beside it; without a name, the workspace-wide lock. Yields whether
        it is held: always with ``wait``, else only if it was free."""
        if name is None:
            return exclusive_lock(self.root / ".write.lock", wait=wait)
        lock = inside(self.root, self.root / ".locks" / f"{validate_name(name)}.lock")
        return exclusive_lock(lock, wait=wait)

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
        folder, names = self.root / "indexes", set(self.database.names() if self.database else ())
        if folder.is_dir():
            names |= {p.stem for p in folder.glob("*.json")} | {p.name for p in folder.iterdir()
                                                                if p.is_dir()}
        return sorted(n for n in names if _valid(n))

    def in_database(self, name: str) -> bool:  # (``database_indexes``)
        return self.database is not None and self.database.has(validate_name(name))

    def has_index(self, name: str) -> bool:
        return self.record_path(name).exists() or self.index_path(name).is_dir() \
            or self.in_database(name)

    def _require(self, name: str) -> None:
        if not self.has_index(name):
            known = ", ".join(self.index_names()) or "none yet"
            raise WorkspaceError(
                f"no index named {name!r} in {self.root} (indexes: {known}); "
                "create it by ingesting files into it"
            )

    def record(self, name: str) -> IndexRecord:
        """The index's workspace record (made from its manifest if the file is missing)."""
        path = self.record_path(name)
        if path.exists():
            return read_record(path)
        if self.in_database(name):
            return self.database.record(name)  # type: ignore[union-attr]
        self._require(name)
        facts = read_facts(self.index_path(name))
        return IndexRecord(_embedding_choice(self.settings), facts.model, None, None,
                           facts.created, facts.updated)

    def save_record(self, name: str, record: IndexRecord) -> None:
        if record.store == DATABASE and self.database is not None:
            return self.database.save_record(name, record)
        write_record(self.record_path(name), record)

    def create_index(
        self,
        name: str,
        *,
        settings: Settings | None = None,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        exist_ok: bool = False, store: str | None = None,
    ) -> IndexInfo:
        """Create an empty index: model and chunking from ``settings``, vectors at ``store`` (see
        ``ragcore.stores.locations``; default: the index folder). ``exist_ok`` keeps one that is.
        """
        with self.writing(name):
            if not (exist_ok and self.has_index(name)):
                self._create_index(name, settings=settings, chunk_size=chunk_size,
                                   chunk_overlap=chunk_overlap, store=store)
        return self.index_info(name)

    def _create_index(self, name: str, *, settings: Settings | None, chunk_size: int | None,
                      chunk_overlap: int | None, store: str | None = None) -> None:
        if self.has_index(name):
            raise WorkspaceError(f"an index named {name!r} already exists: pick another name")
        settings = settings or self.settings
        embedder = self.embedder_override or _embedder_for(settings)
        chunk_size = chunk_size if chunk_size is not None else settings.chunk_size
        chunk_overlap = chunk_overlap if chunk_overlap is not None else settings.chunk_overlap
        _check_chunking(chunk_size, chunk_overlap)
        stamp = now_iso()
        record = IndexRecord(_embedding_choice(settings), embedder.model_name, chunk_size,
                             chunk_overlap, stamp, stamp, uid=new_uid())
        if default_store(store) == DATABASE:
            if self.database is None:
                raise WorkspaceError("an index in the database needs $RAGCORE_DATABASE_URL: set "
                                     "it to postgresql://USER@HOST:PORT/DB")
            return self.database.create(name, record, embedder)
        self.save_record(name, with_store(record, store, self.index_path(name), name, embedder))

    def embedder_for(self, name: str) -> Embedder:
        """The embedder an index must be queried and extended with."""
        record = self.record(name)
        embedder = self.embedder_override
        if embedder is None:
            embedder = _embedder_for(Settings(**record.embedding)) if record.embedding \
                else _embedder_for(self.settings)
            embedder = same_model_variant(embedder, record.embed_model)
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
        from .backends import change_embedding

        with self.writing(name):
            change_embedding(self, name, settings)

    def _load_raw(self, name: str, embedder: Embedder | None = None) -> VectorStoreIndex:
        from ..index import VectorStoreIndex

        return VectorStoreIndex.load(self.index_path(name), embedder=embedder)

    def load_index(self, name: str) -> VectorStoreIndex:
        """The named index, ready to query with the embedding model it was built with."""
        self._require(name)
        embedder = self.embedder_for(name)
        if self.in_database(name):
            return self.database.open(name, embedder, self.record(name))  # type: ignore
        if not saved(self.index_path(name)):
            from ..index import VectorStoreIndex

            return VectorStoreIndex([], embedder=embedder)
        return self._load_raw(name, embedder)

    def index_version(self, name: str) -> IndexVersion:
        """Which state of the index is on disk; reads the record and the manifest's revision."""
        from ..index.disk.folder import read_revision

        if self.in_database(name):
            return self.database.version(name)  # type: ignore[union-attr]
        record = self.record(name)
        folder = self.index_path(name)
        revision = read_revision(folder) if saved(folder) else None
        return IndexVersion(record.uid, record.embed_model, revision)

    def index_info(self, name: str) -> IndexInfo:
        """Stats of one index from its manifest and record, without loading it (see ``stats``)."""
        self._require(name)
        if self.in_database(name):
            return self.database.info(name)  # type: ignore[union-attr]
        return describe_index(name, self.record(name), self.index_path(name),
                              self.record_path(name),
                              try_lock=lambda: self.writing(name, wait=False))

    def list_indexes(self) -> list[IndexInfo]:
        """Every index with its stats, by name."""
        return [self.index_info(name) for name in self.index_names()]

    def delete_index(self, name: str) -> int:
        """Delete an index, its record, uploads and saved chats; returns how many chats."""
        with self.writing(name):
            self._require(name)
            uid = self.record(name).uid
            if self.in_database(name):
                self.database.drop(name)  # type: ignore[union-attr]
            drop_store(self.index_path(name))  # a database's collection or table, if any
            for path in (self.index_path(name), self.upload_dir(name)):
                if path.is_dir():
                    shutil.rmtree(path)
            self.record_path(name).unlink(missing_ok=True)
        chats = self.chats_of(name, uid)
        for chat in chats:
            self.chats.delete(chat.id)
        return len(chats)

    # -- uploads and documents ---------------------------------------------------------------

    def save_upload(self, index: str, filename: str, data: bytes) -> Path:
        """Store an uploaded file under ``uploads/<index>/`` with a sanitized name (and in the
        database for an index there: every server opens it); the same name replaces it."""
        folder = self.upload_dir(index)
        target = inside(self.root, folder / upload_name(filename))
        if target.parent != folder:
            raise WorkspaceError(f"upload name {filename!r} is not a plain file name")
        write_bytes_atomic(target, bytes(data))
        if self.in_database(index):
            self.database.keep_upload(index, target.name, bytes(data))  # type: ignore[union-attr]
        return target

    def ingest(
        self,
        name: str,
        paths: Iterable[str | Path],
        *,
        chunk_size: int | None = None,
        chunk_overlap: int | None = None,
        progress: IngestCallback | None = None,
        cancel: Callable[[], bool] | None = None,
        batching: Batching | None = None,
        on_commit: Callable[[list[str]], None] | None = None,
        uid: str | None = None,
    ) -> IngestReport:
        """Read, split, embed and add files (or folders) to an index, creating it if needed:
        changed files updated, unchanged skipped, unreadable ones reported. The index is saved
        after every batch (``batching``): ``cancel`` or a crash keeps the batches before;
        ``on_commit`` gets the files saved. With ``uid`` ("": any) the index must exist."""
        validate_name(name)
        files, skipped = scan_inputs(list(paths))
        with self.writing(name):
            if uid is not None and (not self.has_index(name)
                                    or uid and self.record(name).uid not in ("", uid)):
                raise WorkspaceError(f"the index {name!r} this job was for was deleted: nothing "
                                     "to resume; upload the files into an index again")
            if uid is None and not self.has_index(name):
                self._create_index(name, settings=None, chunk_size=chunk_size,
                                   chunk_overlap=chunk_overlap)
            handle = self._open(name, chunking=(chunk_size, chunk_overlap))
            return ingest_files(handle, files, progress=progress, cancel=cancel,
                                batching=batching, on_commit=on_commit, skipped=skipped)

    def delete_document(self, name: str, doc_id_or_file: str) -> list[str]:
        """Remove a document (or a file's documents) and uploads no document comes from any
        more; returns their ids."""
        with self.writing(name):
            handle = self._open(name)
            removed, orphans = remove_documents(handle, doc_id_or_file)
            handle.save()
            for path in orphans:
                inside(self.root, path).unlink(missing_ok=True)
            return removed

    def reindex_document(
        self,
        name: str,
        doc_id_or_file: str,
        *,
        progress: IngestCallback | None = None,
        cancel: Callable[[], bool] | None = None,
    ) -> IngestReport:
        """Read a document's file again and re-embed it even if it did not change."""
        with self.writing(name):
            handle = self._open(name)
            return ingest_files(handle, source_files(handle, doc_id_or_file), force=True,
                                progress=progress, cancel=cancel)

    def documents(self, name: str) -> list[dict[str, Any]]:
        """One row per file of an index: file, path, documents (pages), chunks, doc ids."""
        self._require(name)
        if self.in_database(name):
            return files_of(self.load_index(name))
        return files_of(self._load_raw(name)) if saved(self.index_path(name)) else []

    def _open(self, name: str, *,
              chunking: tuple[int | None, int | None] = (None, None)) -> IndexHandle:
        """The index to change, its record and paths (call under ``writing``)."""
        self._require(name)
        record, in_db = self.record(name), self.in_database(name)  # in_db: no folder
        folder, saved_at = (None, None) if in_db else (self.index_path(name),
                                                        self.record_path(name))
        index = self.database.open(name, self.embedder_for(name), record, chunking) if in_db \
            else open_index(folder, self.embedder_for(name), record, chunking=chunking)
        return IndexHandle(name, index, record, folder, saved_at, self.upload_dir(name),
                           chunking, self.settings.max_file_mb * 10**6)

    open_for_change = _open  # a worker's batch: the database's transactions order its changes

    # -- chats -------------------------------------------------------------------------------

    def save_chat(self, chat: SavedChat) -> Path:
        """Save ``chat``, noting the uid of its index the first time."""
        if not chat.index_uid and self.has_index(chat.index):
            chat.index_uid = self.record(chat.index).uid
        return self.chats.save(chat)

    def list_chats(self, *, index: str | None = None) -> list[ChatSummary]:
        chats = self.chats.list()
        return [c for c in chats if index is None or c.index == index]

    def chats_of(self, name: str, uid: str = "") -> list[ChatSummary]:
        """The saved chats of index ``name`` (of the one with ``uid``: older chats have none)."""
        return [c for c in self.list_chats(index=name)
                if not uid or self.chats.load(c.id).index_uid in ("", uid)]

    def has_chat(self, chat_id: str) -> bool:
        return self.chats.exists(chat_id)

    def load_chat(self, chat_id: str) -> SavedChat:
        return self.chats.load(chat_id)

    def delete_chat(self, chat_id: str) -> None:
        self.chats.delete(chat_id)


def _valid(name: str) -> bool:
    try:
        return bool(validate_name(name))
    except WorkspaceError:
        return False


def _check_chunking(chunk_size: int | None, chunk_overlap: int | None) -> None:
    parse_settings({"chunk_size": chunk_size, "chunk_overlap": chunk_overlap},
                   source="chunking options")


def _embedding_choice(settings: Settings) -> dict[str, Any]:
    from .backends import embedding_choice
    return embedding_choice(settings)


def _embedder_for(settings: Settings) -> Embedder:
    from .backends import embedder_from_settings
    return embedder_from_settings(settings)


__all__: Sequence[str] = ("IndexInfo", "IndexRecord", "Workspace", "default_root")
