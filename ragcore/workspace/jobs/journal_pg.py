"""The job journal as rows of the shared Postgres database, for more than one app server.

``PgJobJournal`` has the surface of ``jobs.JobJournal`` (save, load, all, delete, the cancel
requests, prune, sweep, ``owner_alive``), so ``jobs_runner.JobRunner`` runs unchanged on it when
``$RAGCORE_DATABASE_URL`` names Postgres (``open_journal`` chooses). Like the file journal, it
reports a failed write as ``OSError``, which the runner logs without stopping the job. Each job
is one row of the ``jobs`` table (``pg_team_db`` migration 5): its JSON, its state, the process
that runs it (``owner``, set when the job is first written, never by another process's save),
that owner's ``heartbeat`` and a ``cancel_requested`` column.

The heartbeat replaces the pid check of the file journal: a pid means nothing on another
machine. While this process runs jobs, a thread writes the time (the database's clock, so
servers' clocks need not agree) into their rows every ``HEARTBEAT_SECONDS``; a running job
whose heartbeat is older than ``STALE_SECONDS`` lost its process and shows as interrupted on
every server. Another server cancels a job by setting its ``cancel_requested``; the owner's cancel
check reads it, as it reads the ``.cancel`` file of the file journal. A save never clears a
request: only ``clear_cancel`` does, when the job is over.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...errors import WorkspaceError
from .journal import KEEP_FINISHED, Job, JobJournal
from ..team.pg_team_db import PgTeamDB, open_pg_team_db
from ..team.team_db import database_url

logger = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0  # six missed heartbeats: the owner is gone
NOW = "extract(epoch from clock_timestamp())"  # the database's clock, shared by every server


class PgJobJournal:
    """Jobs as rows of the ``jobs`` table; this process's running jobs keep a heartbeat."""

    def __init__(self, db: PgTeamDB, *, heartbeat: float = HEARTBEAT_SECONDS,
                 stale: float = STALE_SECONDS) -> None:
        if heartbeat <= 0 or stale <= heartbeat:
            raise ValueError(f"heartbeat ({heartbeat}) must be positive and stale ({stale}) "
                             "longer than it")
        self.db = db
        self.stale = stale
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self._interval = heartbeat
        self._stop = threading.Event()
        self._beating: threading.Thread | None = None
        self._saves = 0  # saves of running jobs: a save while the thread looked keeps it on
        self._guard = threading.Lock()

    def __repr__(self) -> str:
        return f"PgJobJournal({self.db.path!r}, owner={self.owner!r})"

    # -- writing -------------------------------------------------------------------------------

    def save(self, job: Job) -> None:
        """Write the job's row; the first writer becomes its owner (and beats for it)."""
        with _as_os_error(self.db):
            self._write(job)
        if job.active:
            self._start_heartbeat()

    def _write(self, job: Job) -> None:
        self.db.execute(
            "INSERT INTO jobs (id, index_name, state, active, owner, heartbeat, body) "
            f"VALUES (?, ?, ?, ?, ?, {NOW}, ?) ON CONFLICT(id) DO UPDATE SET "
            "index_name = excluded.index_name, state = excluded.state, "
            "active = excluded.active, body = excluded.body, heartbeat = CASE WHEN "
            "jobs.owner = excluded.owner THEN excluded.heartbeat ELSE jobs.heartbeat END",
            (job.id, job.index, job.state, int(job.active), self.owner,
             json.dumps(job.to_dict(), ensure_ascii=False)))

    def delete(self, job_id: str) -> None:
        self.db.execute("DELETE FROM jobs WHERE id = ?", (job_id,))

    def prune(self, keep: int = KEEP_FINISHED) -> None:
        """Forget the oldest finished jobs beyond ``keep``."""
        with _as_os_error(self.db):
            self.db.execute("DELETE FROM jobs WHERE active = 0 AND id NOT IN (SELECT id FROM "
                            "jobs WHERE active = 0 ORDER BY id DESC LIMIT ?)", (int(keep),))

    def sweep(self) -> None:
        """Cancel requests of jobs that are over are dropped (the file journal's sweep)."""
        with _as_os_error(self.db):
            self.db.execute("UPDATE jobs SET cancel_requested = 0 WHERE active = 0 AND "
                            "cancel_requested = 1")

    # -- reading -------------------------------------------------------------------------------

    def load(self, job_id: str) -> Job | None:
        row = self.db.one("SELECT body FROM jobs WHERE id = ?", (job_id,))
        return _job(row["body"]) if row else None

    def all(self) -> list[Job]:
        """Every job, newest first; an unreadable row is skipped."""
        jobs = [_job(row["body"]) for row in self.db.execute(
            "SELECT body FROM jobs ORDER BY id DESC")]
        return [job for job in jobs if job is not None]

    def owner_alive(self, job: Job) -> bool:
        """Whether the process running ``job`` still beats (this process: always)."""
        row = self.db.one(f"SELECT owner, {NOW} - heartbeat AS age FROM jobs WHERE id = ?",
                          (job.id,))
        return row is not None and (row["owner"] == self.owner or row["age"] < self.stale)

    # -- cancel requests -------------------------------------------------------------------------

    def request_cancel(self, job_id: str) -> None:
        """Ask the process running the job to stop it (its cancel check reads the column)."""
        self.db.execute("UPDATE jobs SET cancel_requested = 1 WHERE id = ?", (job_id,))

    def cancel_requested(self, job_id: str) -> bool:
        row = self.db.one("SELECT cancel_requested FROM jobs WHERE id = ?", (job_id,))
        return bool(row and row[0])

    def clear_cancel(self, job_id: str) -> None:
        self.db.execute("UPDATE jobs SET cancel_requested = 0 WHERE id = ?", (job_id,))

    # -- the heartbeat -------------------------------------------------------------------------

    def beat(self) -> int:
        """Write this process's heartbeat into its running jobs; returns how many there are."""
        rows = self.db.execute(f"UPDATE jobs SET heartbeat = {NOW} WHERE owner = ? AND "
                               "active = 1 RETURNING id", (self.owner,))
        return len(rows)

    def _start_heartbeat(self) -> None:
        with self._guard:
            self._saves += 1  # a beating thread that found nothing to beat for stays on
            if self._beating is None:
                self._beating = threading.Thread(target=self._beat_while_busy, daemon=True,
                                                 name="ragcore-job-heartbeat")
                self._beating.start()

    def _beat_while_busy(self) -> None:
        """Beat until this process runs no job (the next running job's save starts it again)."""
        while not self._stop.wait(self._interval):
            with self._guard:
                saves = self._saves
            try:
                busy = self.beat()
            except Exception as exc:  # noqa: BLE001 - a database hiccup must not stop jobs
                logger.warning("could not write the job heartbeat: %s", exc)
                continue
            with self._guard:
                if not busy and saves == self._saves:  # no job saved since: none is running
                    self._beating = None
                    return

    def close(self) -> None:
        self._stop.set()
        self.db.close()


@contextmanager
def _as_os_error(db: PgTeamDB) -> Iterator[None]:
    """A database error while writing the journal, as the file journal's ``OSError``."""
    import psycopg

    try:
        yield
    except (psycopg.Error, WorkspaceError) as exc:  # WorkspaceError: cannot reconnect
        raise OSError(f"cannot write the job journal at {db.path}: {exc}") from exc


def _job(body: str) -> Job | None:
    try:
        return Job.from_dict(json.loads(body))
    except (ValueError, TypeError) as exc:
        logger.warning("skipping an unreadable job row: %s", exc)
        return None


_journals: dict[str, PgJobJournal] = {}
_journals_guard = threading.Lock()


def pg_journal(url: str) -> PgJobJournal:
    """This process's journal on the database at ``url`` (one connection and heartbeat)."""
    with _journals_guard:
        journal = _journals.get(url)
        if journal is None:
            journal = _journals[url] = PgJobJournal(open_pg_team_db(url))
        return journal



def open_journal(root: Path) -> JobJournal | PgJobJournal:
    """The job journal of the workspace at ``root``: ``<root>/jobs/`` (``jobs.JobJournal``), or
    the ``jobs`` table of the shared database when ``$RAGCORE_DATABASE_URL`` names one, so every
    app server sees every job."""
    url = database_url()
    return pg_journal(url) if url else JobJournal(Path(root) / "jobs")
