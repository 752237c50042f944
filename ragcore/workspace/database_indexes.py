"""The workspace's indexes that live in Postgres (``$RAGCORE_DATABASE_URL``), not in its folder.

An index created with ``store="database"`` (``ragcore ingest --store database``, or every new
index when ``$RAGCORE_INDEX_HOME`` is ``database``) is a ``PgIndex``: its record (embedding
choice, chunking, shown name) is the catalog row's JSON, its nodes, vectors and postings are
tables. Every app server and worker with the same URL sees it, whatever its workspace folder:
servers share nothing but the URL. ``Workspace`` asks ``DatabaseIndexes`` first for a name it
holds, and keeps its folder indexes as they were (the embedded default needs no server).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import StoreError, WorkspaceError
from .handle import splitter_for
from .record import IndexRecord, IndexVersion
from .stats import IndexInfo

if TYPE_CHECKING:
    from ..embeddings.base import Embedder
    from ..index.database import PgIndex

DATABASE = "database"  # the store name of an index kept wholly in the database
HOME_ENV = "RAGCORE_INDEX_HOME"  # "database": new indexes go there by default
_FILE_KEY = r"#(page|line)=\d+$"  # a document id's suffix after its file (``index_files``)
FILES_DDL = """CREATE TABLE IF NOT EXISTS ragcore_files (uid text NOT NULL, name text NOT NULL,
    data bytea NOT NULL, size bigint NOT NULL, stored timestamptz NOT NULL DEFAULT now(),
    status text NOT NULL DEFAULT 'queued', reason text NOT NULL DEFAULT '',
    job text NOT NULL DEFAULT '', PRIMARY KEY (uid, name))"""
QUEUED_JOBS_DDL = """CREATE TABLE IF NOT EXISTS ragcore_queued_jobs (job text PRIMARY KEY,
    index_name text NOT NULL, uid text NOT NULL, batches int NOT NULL, files int NOT NULL,
    queued timestamptz NOT NULL DEFAULT now())"""


def database_url() -> str:
    """``$RAGCORE_DATABASE_URL`` when it names Postgres, else "" (the team database checks
    its form and says what is wrong with another)."""
    from .team.team_db import database_url as team_url

    url = team_url()
    return url if url.startswith(("postgresql://", "postgres://")) else ""


def default_store(store: str | None) -> str | None:
    """The store a new index gets: the one asked for, else the database when ``$HOME_ENV``
    says so."""
    if store is None and os.environ.get(HOME_ENV, "") == DATABASE:
        return DATABASE
    return store


class DatabaseIndexes:
    """The indexes in the database at ``url``, as the workspace sees them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._conn: Any = None
        self._tables_made = False  # ragcore_files and ragcore_queued_jobs exist

    @property
    def conn(self) -> Any:
        if self._conn is None or self._conn.closed:
            from ..stores.postgres.connect import connect

            self._conn = connect(self.url)
        return self._conn

    def names(self) -> list[str]:
        from ..index.database import catalog

        return [e.name for e in catalog.entries(self.conn)]

    def has(self, name: str) -> bool:
        from ..index.database import catalog

        return catalog.entry(self.conn, name) is not None

    def _entry(self, name: str) -> Any:
        from ..index.database import catalog

        found = catalog.entry(self.conn, name)
        if found is None:
            raise WorkspaceError(f"no index named {name!r} in the database: it was deleted")
        return found

    def record(self, name: str) -> IndexRecord:
        found = self._entry(name)
        record = IndexRecord.from_dict(found.record, name)  # type: ignore[arg-type]
        record.uid, record.embed_model, record.store = found.uid, found.model, DATABASE
        return record

    def save_record(self, name: str, record: IndexRecord) -> None:
        from ..index.database import catalog

        catalog.save_record(self.conn, name, record.to_dict())

    def create(self, name: str, record: IndexRecord, embedder: Embedder) -> None:
        from ..index.database import PgIndex

        record.store = DATABASE
        try:
            PgIndex.create(self.url, name, embedder=embedder, record=record.to_dict()).close()
        except StoreError as exc:
            raise WorkspaceError(str(exc)) from exc
        record.uid = self._entry(name).uid  # the catalog's uid names the index's tables

    def open(self, name: str, embedder: Embedder | None, record: IndexRecord,
             chunking: tuple[int | None, int | None] = (None, None)) -> PgIndex:
        from ..index.database import PgIndex

        return PgIndex(self.url, name, embedder=embedder,
                       splitter=splitter_for(record, chunking))

    def version(self, name: str) -> IndexVersion:
        found = self._entry(name)
        return IndexVersion(found.uid, found.model, found.generation)

    def documents(self, name: str) -> int:
        return int(self._entry(name).documents)

    def info(self, name: str) -> IndexInfo:
        """The listing's summary: counts from the catalog, files from the document ids."""
        from psycopg import sql

        from ..index.database.catalog import Tables, table_bytes

        found, record = self._entry(name), self.record(name)
        tables = Tables(found.uid)
        files = self.conn.execute(sql.SQL(
            "SELECT count(DISTINCT regexp_replace(doc_id, %s, '')) FROM {}").format(tables.docs),
            [_FILE_KEY]).fetchone()[0]
        return IndexInfo(
            name=name, files=int(files), documents=found.documents, nodes=found.nodes,
            tokens=None, bytes_on_disk=table_bytes(self.conn, tables),
            embed_model=found.model, chunk_size=record.chunk_size,
            chunk_overlap=record.chunk_overlap, created=record.created or found.created,
            updated=found.updated, revision=found.generation, store=DATABASE)

    # -- originals: the uploaded files, kept where every server and worker reads them ---------

    def ensure_tables(self) -> None:
        """``ragcore_files`` and ``ragcore_queued_jobs``, made if missing, once per instance."""
        if self._tables_made:
            return
        with self.conn.transaction():
            self.conn.execute("SELECT pg_advisory_xact_lock(7261676)")
            for ddl in (FILES_DDL, QUEUED_JOBS_DDL):
                self.conn.execute(ddl)
        self._tables_made = True

    def keep_upload(self, name: str, file_name: str, data: bytes, *,
                    status: str = "uploaded", job: str = "") -> None:
        """Keep an upload of index ``name`` in ``ragcore_files`` (the same name replaces it),
        with the queued job that will read it, if any."""
        self.ensure_tables()
        self.conn.execute(
            "INSERT INTO ragcore_files (uid, name, data, size, status, job) VALUES (%s, %s, %s, "
            "%s, %s, %s) ON CONFLICT (uid, name) DO UPDATE SET data = EXCLUDED.data, size = "
            "EXCLUDED.size, stored = now(), status = EXCLUDED.status, reason = '', job = "
            "EXCLUDED.job", [self._entry(name).uid, file_name, data, len(data), status, job])

    def upload(self, uid: str, file_name: str) -> bytes | None:
        """An upload's bytes by index uid and file name (None if it is not kept)."""
        self.ensure_tables()
        row = self.conn.execute("SELECT data FROM ragcore_files WHERE uid = %s AND name = %s",
                                [uid, file_name]).fetchone()
        return None if row is None else bytes(row[0])

    def original(self, name: str, file_name: str, folder: Path) -> Path | None:
        """The upload ``file_name`` of index ``name`` as a file in ``folder`` (written from the
        database when this server never had it; None when the database has none either)."""
        path = folder / file_name
        if not path.is_file():
            data = self.upload(self._entry(name).uid, file_name)
            if data is None:
                return None
            folder.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return path

    def drop(self, name: str) -> None:
        from ..index.database import catalog

        uid = self._entry(name).uid
        catalog.drop(self.conn, name)
        self.ensure_tables()
        self.conn.execute("DELETE FROM ragcore_files WHERE uid = %s", [uid])
