"""Queued ingestion: files kept in the database, their batches taken by workers on any machine.

``queue_ingest`` (``ragcore ingest PATH --index NAME --queue``) stores each file's bytes in
``ragcore_files`` and queues one task per batch of files on the ``WorkQueue`` (keys
``<job>/<n>``); ``ragcore_queued_jobs`` names the job, its index and its batch count, so any
server lists it. ``work`` (``ragcore worker``) runs ``ingest_batch`` for each task it takes: it
claims the task's key on the index (``PgIndex.claim``: a batch already committed is skipped),
writes the batch's files into a scratch folder that stands for the index's upload folder (so
their documents get the ids an upload of the same files gets: ``upload:<name>``), ingests them
with the ordinary ``ingest_files`` and commits once, at the end: one transaction holding the
batch's nodes, vectors, postings and its key. A worker killed mid-batch committed nothing; the
queue hands the batch to another worker after its lease, which does it whole. Nothing lost,
nothing twice. Embeddings come from the worker's own model for the index (its record's
embedding choice), or from whatever the workspace is given (a remote embedding server).

``job_progress`` reads a job's batches from the queue and its commits from the index history:
done, running, queued, failed, and an ETA from the pace so far, the same on every server.
"""

from __future__ import annotations

import logging
import tempfile
import time
import uuid
from contextlib import closing
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from ...errors import ReaderError, WorkspaceError
from ..files import upload_name
from .work_queue import WorkQueue

if TYPE_CHECKING:
    from ..workspace import Workspace

logger = logging.getLogger(__name__)

KIND = "ingest"
FILES_PER_BATCH = 4


@dataclass(slots=True)
class QueuedJob:
    """A queued ingestion: its id, index, how many batches and which files."""

    job: str
    index: str
    batches: int
    files: list[str] = field(default_factory=list)
    skipped: list[ReaderError] = field(default_factory=list)


def _database(workspace: Workspace) -> Any:
    if workspace.database is None:
        raise WorkspaceError("queued ingestion needs $RAGCORE_DATABASE_URL (a Postgres with "
                             "pgvector that the workers reach too): set it, or leave out --queue")
    return workspace.database


def queue_ingest(workspace: Workspace, name: str, paths: list[str | Path], *,
                 files_per_batch: int = FILES_PER_BATCH) -> QueuedJob:
    """Store the files in the database and queue their batches; creates the index in the
    database if it is new (an index in a folder cannot be fed by workers elsewhere)."""
    from ..ingest.inputs import scan_inputs

    database = _database(workspace)
    if files_per_batch < 1:
        raise WorkspaceError("a batch needs at least one file")
    if not workspace.has_index(name):
        workspace.create_index(name, store="database")
    elif not workspace.in_database(name):
        raise WorkspaceError(f"index {name!r} lives in the workspace folder, which workers on "
                             "other machines cannot reach: ingest without --queue, or into an "
                             "index in the database (--store database)")
    uid = workspace.record(name).uid
    files, skipped = scan_inputs(list(paths))
    names: dict[str, Path] = {}
    for path in files:
        stored = upload_name(path.name)
        while stored in names:  # two folders' files of one name
            stored = f"{Path(stored).stem}-{len(names)}{Path(stored).suffix}"
        names[stored] = path
    job = uuid.uuid4().hex[:12]
    batches = [list(names)[i:i + files_per_batch] for i in range(0, len(names),
                                                                  files_per_batch)]
    conn = database.conn
    database.ensure_tables()
    with closing(WorkQueue(database.url)) as queue:
        queue.install()
        with conn.transaction():
            for stored, path in names.items():
                database.keep_upload(name, stored, path.read_bytes(), status="queued", job=job)
            conn.execute("INSERT INTO ragcore_queued_jobs (job, index_name, uid, batches, files) "
                         "VALUES (%s, %s, %s, %s, %s)",
                         [job, name, uid, len(batches), len(names)])
        for number, batch in enumerate(batches):
            key = f"{job}/{number}"
            queue.enqueue(KIND, {"index": name, "uid": uid, "files": batch, "task": key},
                          key=key)
    return QueuedJob(job, name, len(batches), list(names), skipped)


def ingest_batch(workspace: Workspace, payload: dict[str, Any], *,
                 opened: dict[tuple[str, str], Any] | None = None) -> None:
    """One task: ingest its files into its index and commit them once (see the module).
    ``opened`` keeps the indexes a worker opened, with their connections, for its next tasks."""
    from ..ingest.commits import Batching
    from ..ingest.index_files import ingest_files

    name, uid, task = payload["index"], payload["uid"], payload["task"]
    if not workspace.in_database(name) or workspace.record(name).uid != uid:
        logger.warning("task %s: index %r was deleted; nothing to do", task, name)
        return
    handle = (opened or {}).get((name, uid)) or workspace.open_for_change(name)
    if opened is not None:
        opened[name, uid] = handle
    index = handle.index
    try:
        if not index.claim(task):
            logger.info("task %s was committed before; skipped", task)
            return
        conn = _database(workspace).conn
        with tempfile.TemporaryDirectory(prefix="ragcore-batch-") as scratch:
            folder = Path(scratch).resolve()
            paths = []
            for stored in payload["files"]:
                data = _database(workspace).upload(uid, stored)
                if data is not None:  # else deleted since it was queued
                    (folder / stored).write_bytes(data)
                    paths.append(folder / stored)
            everything = Batching(chunks=10**12, seconds=1e12)  # one commit, at the end
            report = ingest_files(replace(handle, uploads=folder), paths, batching=everything)
        if not report.commits:  # nothing changed: the key still lands, so it is not redone
            index.commit(task=task)
        for outcome in report.files:
            conn.execute("UPDATE ragcore_files SET status = %s, reason = %s WHERE uid = %s AND "
                         "name = %s", [outcome.status, outcome.reason or "", uid,
                                       Path(outcome.path).name])
    finally:
        index.rollback()  # whatever was not committed (a failure) is dropped
        if opened is None:
            index.close()


def work(workspace: Workspace, *, until_empty: bool = False,
         stop: Callable[[], bool] | None = None, lease_seconds: float = 30.0) -> int:
    """Take ingest batches from the queue until ``stop()`` (or, ``until_empty``, until none is
    left); returns how many were done."""
    queue = WorkQueue(_database(workspace).url, lease_seconds=lease_seconds)
    opened: dict[tuple[str, str], Any] = {}
    try:
        queue.install()
        return queue.work({KIND: lambda payload: ingest_batch(workspace, payload, opened=opened)},
                          until_empty=until_empty, stop=stop)
    finally:
        queue.close()
        for handle in opened.values():
            handle.index.close()


def job_progress(workspace: Workspace, job: str | None = None) -> list[dict[str, Any]]:
    """Every queued job (or one), newest first: index, batches done/running/queued/failed,
    files, an ETA in seconds from the pace so far (None before the first batch), the batches'
    errors and the files that could not be read ("unreadable": (name, reason))."""
    database = _database(workspace)
    conn = database.conn
    database.ensure_tables()
    rows = conn.execute(
        "SELECT job, index_name, batches, files, extract(epoch FROM now() - queued) FROM "
        "ragcore_queued_jobs WHERE %s::text IS NULL OR job = %s ORDER BY queued DESC",
        [job, job]).fetchall()
    jobs = []
    with closing(WorkQueue(database.url)) as queue:  # one connection for every job's counts
        for job_id, index, batches, files, elapsed in rows:
            counts = queue.counts(f"{job_id}/")
            done, left = counts["done"], counts["queued"] + counts["running"]
            eta = float(elapsed) / done * left if done else None
            unreadable = conn.execute("SELECT name, reason FROM ragcore_files WHERE job = %s "
                                      "AND status = 'failed' ORDER BY name", [job_id]).fetchall()
            jobs.append({"job": job_id, "index": index, "batches": batches, "files": files,
                         **counts, "eta_seconds": eta, "errors": queue.failures(f"{job_id}/"),
                         "unreadable": [tuple(r) for r in unreadable]})
    return jobs


def wait_for(workspace: Workspace, job: str, *, timeout: float = 600.0) -> dict[str, Any]:
    """Block until ``job`` has no batch queued or running; its final progress."""
    deadline = time.monotonic() + timeout
    while True:
        progress = job_progress(workspace, job)[0]
        if not progress["queued"] and not progress["running"]:
            return progress
        if time.monotonic() > deadline:
            raise WorkspaceError(f"job {job} still has batches after {timeout:g} s: are "
                                 "workers running (ragcore worker)?")
        time.sleep(0.2)
