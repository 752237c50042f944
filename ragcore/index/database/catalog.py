"""The tables an index in Postgres lives in, and the catalog that names each index.

Shared by every index of the database:

- ``ragcore_indexes``: one row per index: its name (unique), uid, the owner's record (JSON the
  workspace writes: embedding choice, chunking, shown name), embedding model and dimension, the
  committed ``generation`` and the live counts BM25 needs (``nodes``, ``total_length``);
- ``ragcore_index_commits``: the commit history, one row per generation (when, what changed, and
  the task key a worker committed it under);
- ``ragcore_index_tasks``: the task keys already committed, so a batch a killed worker left
  half done and another finished is never committed twice (``PgIndex.commit(task=...)``).

Each index has three tables of its own, named from its uid (``rc_<uid>_nodes`` and so on):
``nodes`` (the node record as JSON, its metadata for filters, its document, its BM25 length and
its ``vector(dim)`` with an HNSW index), ``postings`` (term, node, frequency: BM25 reads them
with the node's length kept beside) and ``docs`` (each document's hash, metadata and nodes in
order). Tables are made under an advisory lock, so two processes opening a new database at once
do not race on the catalog's DDL. Names reach SQL as ``psycopg.sql.Identifier`` only.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from typing import Any

from psycopg import sql
from psycopg.types.json import Jsonb

from ...errors import StoreError

_LOCK = 0x7261_6763  # pg_advisory_xact_lock key of ragcore's DDL ("ragc")
_UID = re.compile(r"^[0-9a-f]{8,32}$")

CATALOG_DDL = (
    """CREATE TABLE IF NOT EXISTS ragcore_indexes (
        name text PRIMARY KEY, uid text UNIQUE NOT NULL, record jsonb NOT NULL DEFAULT '{}',
        model text NOT NULL DEFAULT '', dim int, generation bigint NOT NULL DEFAULT 0,
        nodes bigint NOT NULL DEFAULT 0, documents bigint NOT NULL DEFAULT 0,
        total_length bigint NOT NULL DEFAULT 0, characters bigint NOT NULL DEFAULT 0,
        created timestamptz NOT NULL DEFAULT now(), updated timestamptz NOT NULL DEFAULT now())""",
    """CREATE TABLE IF NOT EXISTS ragcore_index_commits (
        uid text NOT NULL, generation bigint NOT NULL, committed timestamptz NOT NULL
        DEFAULT now(), task text, nodes_added int NOT NULL, nodes_removed int NOT NULL,
        documents_changed int NOT NULL, PRIMARY KEY (uid, generation))""",
    """CREATE TABLE IF NOT EXISTS ragcore_index_tasks (
        uid text NOT NULL, task text NOT NULL, generation bigint NOT NULL,
        PRIMARY KEY (uid, task))""",
)


@dataclass(frozen=True, slots=True)
class Tables:
    """The three tables of one index, as SQL identifiers."""

    uid: str

    def __post_init__(self) -> None:
        if not _UID.match(self.uid):
            raise StoreError(f"index uid {self.uid!r} is not 8-32 lower-case hex digits")

    def name(self, part: str) -> str:
        return f"rc_{self.uid}_{part}"

    @property
    def nodes(self) -> sql.Identifier:
        return sql.Identifier(self.name("nodes"))

    @property
    def postings(self) -> sql.Identifier:
        return sql.Identifier(self.name("postings"))

    @property
    def docs(self) -> sql.Identifier:
        return sql.Identifier(self.name("docs"))


@dataclass(frozen=True, slots=True)
class CatalogEntry:
    """One index as the catalog row has it."""

    name: str
    uid: str
    record: dict[str, Any]
    model: str
    dim: int | None
    generation: int
    nodes: int
    documents: int
    total_length: int
    characters: int
    created: str
    updated: str


_COLUMNS = ("name, uid, record, model, dim, generation, nodes, documents, total_length, "
            "characters, created, updated")


def _entry(row: tuple) -> CatalogEntry:
    *head, created, updated = row
    return CatalogEntry(*head, created.isoformat(), updated.isoformat())


def new_uid() -> str:
    """A new index's uid (it names the index's tables)."""
    return secrets.token_hex(8)


def install(conn: Any) -> None:
    """The catalog tables, made if missing (idempotent; concurrent callers wait in turn)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        for ddl in CATALOG_DDL:
            conn.execute(ddl)


def create_tables(conn: Any, tables: Tables, dim: int) -> None:
    """An index's own tables with their indexes (HNSW on the vectors, cosine)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", [_LOCK])
        conn.execute(sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (node_id text PRIMARY KEY, doc_id text, "
            "ord bigint GENERATED ALWAYS AS IDENTITY, node jsonb NOT NULL, metadata jsonb NOT "
            "NULL, length int NOT NULL, embedding vector({}) NOT NULL)"
        ).format(tables.nodes, sql.Literal(int(dim))))
        conn.execute(sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (term text NOT NULL, node_id text NOT NULL, "
            "tf int NOT NULL, length int NOT NULL)").format(tables.postings))
        conn.execute(sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (doc_id text PRIMARY KEY, hash text, metadata jsonb "
            "NOT NULL, node_ids jsonb NOT NULL, characters bigint NOT NULL, indexed_at text NOT "
            "NULL, ord bigint GENERATED ALWAYS AS IDENTITY)").format(tables.docs))
        for part, column, method in (("nodes", "doc_id", "btree"),
                                     ("postings", "term", "btree"),
                                     ("postings", "node_id", "btree"),
                                     ("nodes", "embedding vector_cosine_ops", "hnsw")):
            conn.execute(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING {} ({})").format(
                sql.Identifier(tables.name(f"{part}_{column.split()[0]}")),
                sql.Identifier(tables.name(part)), sql.SQL(method), sql.SQL(column)))


def register(conn: Any, name: str, uid: str, record: dict[str, Any], *, model: str,
             dim: int) -> CatalogEntry:
    """Add an index to the catalog and make its tables; StoreError if the name is taken."""
    import psycopg

    install(conn)
    create_tables(conn, Tables(uid), dim)
    try:
        row = conn.execute(
            f"INSERT INTO ragcore_indexes (name, uid, record, model, dim) VALUES "
            f"(%s, %s, %s, %s, %s) RETURNING {_COLUMNS}",
            [name, uid, Jsonb(record), model, dim]).fetchone()
    except psycopg.errors.UniqueViolation as exc:
        raise StoreError(f"an index named {name!r} is already in the database: pick another "
                         "name") from exc
    return _entry(row)


def entries(conn: Any) -> list[CatalogEntry]:
    """Every index in the database, by name ([] before the catalog exists)."""
    if not _installed(conn):
        return []
    rows = conn.execute(f"SELECT {_COLUMNS} FROM ragcore_indexes ORDER BY name").fetchall()
    return [_entry(r) for r in rows]


def entry(conn: Any, name: str) -> CatalogEntry | None:
    if not _installed(conn):
        return None
    row = conn.execute(f"SELECT {_COLUMNS} FROM ragcore_indexes WHERE name = %s",
                       [name]).fetchone()
    return None if row is None else _entry(row)


def entry_by_uid(conn: Any, uid: str) -> CatalogEntry | None:
    row = conn.execute(f"SELECT {_COLUMNS} FROM ragcore_indexes WHERE uid = %s",
                       [uid]).fetchone()
    return None if row is None else _entry(row)


def save_record(conn: Any, name: str, record: dict[str, Any]) -> None:
    """Replace the owner's record of index ``name`` (StoreError if there is none)."""
    cursor = conn.execute("UPDATE ragcore_indexes SET record = %s WHERE name = %s",
                          [Jsonb(record), name])
    if cursor.rowcount == 0:
        raise StoreError(f"no index named {name!r} in the database")


def drop(conn: Any, name: str) -> bool:
    """Remove index ``name``: its catalog row, history, task marks and tables, in one
    transaction (readers see it whole or gone); False if there was none."""
    with conn.transaction():
        row = conn.execute("DELETE FROM ragcore_indexes WHERE name = %s RETURNING uid",
                           [name]).fetchone() if _installed(conn) else None
        if row is None:
            return False
        uid = row[0]
        conn.execute("DELETE FROM ragcore_index_commits WHERE uid = %s", [uid])
        conn.execute("DELETE FROM ragcore_index_tasks WHERE uid = %s", [uid])
        tables = Tables(uid)
        for table in (tables.nodes, tables.postings, tables.docs):
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
    return True


def history(conn: Any, uid: str, *, limit: int = 50) -> list[dict[str, Any]]:
    """The index's latest commits, newest first."""
    rows = conn.execute(
        "SELECT generation, committed, task, nodes_added, nodes_removed, documents_changed "
        "FROM ragcore_index_commits WHERE uid = %s ORDER BY generation DESC LIMIT %s",
        [uid, limit]).fetchall()
    keys = ("generation", "committed", "task", "nodes_added", "nodes_removed",
            "documents_changed")
    return [dict(zip(keys, (g, c.isoformat(), *rest))) for g, c, *rest in rows]


def table_bytes(conn: Any, tables: Tables) -> int:
    """What the index's tables and their indexes take on the server's disk."""
    row = conn.execute("SELECT coalesce(sum(pg_total_relation_size(t)), 0) FROM "
                       "unnest(%s::regclass[]) t",
                       [[tables.name(p) for p in ("nodes", "postings", "docs")]]).fetchone()
    return int(row[0])


def stats(conn: Any, name: str, tables: Tables, database: str) -> dict[str, Any]:
    """An index's stats as ``VectorStoreIndex.stats`` gives them (tokens None: counting needs
    the tokenizer), with its generation and database."""
    found = entry(conn, name)
    if found is None:
        raise StoreError(f"index {name!r} was deleted from the database")
    return {"documents": found.documents, "nodes": found.nodes, "characters": found.characters,
            "tokens": None, "model": found.model, "dim": found.dim, "metric": "cosine",
            "created": found.created, "updated": found.updated,
            "bytes_on_disk": table_bytes(conn, tables), "path": None,
            "approximate_search": [], "generation": found.generation, "database": database}


def _installed(conn: Any) -> bool:
    row = conn.execute("SELECT to_regclass('ragcore_indexes') IS NOT NULL").fetchone()
    return bool(row[0])
