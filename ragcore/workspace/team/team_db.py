"""The team database: one SQLite file beside the indexes, ``<workspace>/team.sqlite3``.

It keeps what team mode adds to a workspace: accounts (``accounts``), sign-in sessions
(``sessions``), failed sign-ins (``throttle``), index owners, shares and chat authors
(``grants``) and the audit log (``audit``). Indexes, uploads and chats stay files; rows here
refer to an index by its record uid (``names``), never by a name a rename changes.

The schema is a numbered list of migrations (``schema``): ``PRAGMA user_version`` says how many have run,
``open_team_db`` runs the rest in one transaction each, so a database made by an older ragcore
is brought up to date when it is opened, and one from a newer ragcore is refused. The file is in
WAL mode (readers never wait for the writer) with foreign keys enforced, so deleting a user
deletes their sessions and shares in the same statement.

With ``$RAGCORE_DATABASE_URL`` set to a Postgres URL, ``open_workspace_db`` opens the same
schema there instead (``pg_team_db``), so two app servers share users, grants, sessions, saved
chats and the job journal. The modules built on it write their SQL once, in the subset both
databases speak.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...errors import WorkspaceError
from .schema import MIGRATIONS

TEAM_FILE = "team.sqlite3"
DATABASE_ENV = "RAGCORE_DATABASE_URL"


class TeamDB:
    """One connection to the team database, shared by the threads of one process.

    Statements run one at a time (a lock: Streamlit serves each browser tab in its own thread);
    ``transaction`` groups writes that must land together. Other processes (the CLI, a second
    app) open their own ``TeamDB``; SQLite's file locks and WAL keep them consistent.
    """

    dialect = "sqlite"

    def __init__(self, connection: sqlite3.Connection, path: Path | None = None) -> None:
        self.connection = connection
        self.path = path
        self._lock = threading.RLock()

    def execute(self, sql: str, parameters: tuple = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self.connection.execute(sql, parameters).fetchall()

    def one(self, sql: str, parameters: tuple = ()) -> sqlite3.Row | None:
        rows = self.execute(sql, parameters)
        return rows[0] if rows else None

    @contextmanager
    def transaction(self) -> Iterator[TeamDB]:
        """Writes that land together or not at all (BEGIN IMMEDIATE: the writer waits its turn)."""
        with self._lock:
            self.connection.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                self.connection.execute("ROLLBACK")
                raise
            self.connection.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self.connection.close()


def schema_version(db: TeamDB) -> int:
    row = db.one("PRAGMA user_version")
    return int(row[0]) if row else 0


def migrate(db: TeamDB, *, upto: int | None = None) -> int:
    """Run the migrations not yet run (up to number ``upto``); returns the version reached."""
    target = len(MIGRATIONS) if upto is None else upto
    version = schema_version(db)
    if version > len(MIGRATIONS):
        where = db.path or "the team database"
        raise WorkspaceError(
            f"{where} has schema version {version}, newer than this ragcore knows "
            f"({len(MIGRATIONS)}): upgrade ragcore, or open another workspace")
    for number in range(version + 1, target + 1):
        with db.transaction():
            for statement in MIGRATIONS[number - 1].split(";"):
                if statement.strip():
                    db.connection.execute(statement)
            db.connection.execute(f"PRAGMA user_version = {number}")
    return max(version, target)


def open_team_db(path: str | Path, *, upto: int | None = None) -> TeamDB:
    """Open (making it if needed) the team database at ``path`` and bring its schema up to date
    (to migration ``upto`` only: tests make older databases so)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                     timeout=30)
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA foreign_keys = ON")
        # WAL with NORMAL: a commit stays consistent; a power cut may lose only the last ones
        connection.execute("PRAGMA synchronous = NORMAL")
        db = TeamDB(connection, path)
        migrate(db, upto=upto)
    except sqlite3.DatabaseError as exc:
        raise WorkspaceError(
            f"{path} is not a readable team database ({exc}): restore it from a backup, or "
            "move it away to start the team set-up again") from exc
    return db


def database_url() -> str:
    """``$RAGCORE_DATABASE_URL`` ("" when unset: the workspace's own SQLite file)."""
    return os.environ.get(DATABASE_ENV, "").strip()


def open_workspace_db(root: str | Path, *, url: str | None = None) -> TeamDB:
    """The team database of the workspace at ``root``: Postgres when ``url`` (by default
    ``$RAGCORE_DATABASE_URL``) names one, so several app servers share it (``pg_team_db``),
    else ``<root>/team.sqlite3``."""
    url = database_url() if url is None else url
    if not url:
        return open_team_db(Path(root) / TEAM_FILE)
    if not url.startswith(("postgresql://", "postgres://")):
        raise WorkspaceError(f"${DATABASE_ENV} must be a postgresql://USER@HOST:PORT/DATABASE "
                             f"URL, not {url.split('://', 1)[0]!r}: unset it to keep the team "
                             "database in the workspace folder")
    from .pg_team_db import open_pg_team_db

    return open_pg_team_db(url)  # type: ignore[return-value]  # the same surface
