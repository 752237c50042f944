"""A work queue in Postgres: ingest tasks taken by ``ragcore worker`` processes on any machine.

Where ``runner`` runs one job's batches inside the app server that started it, ``WorkQueue``
lets any number of workers, anywhere the database URL reaches, take the batches. A task is a
``kind`` (which handler runs it), a JSON payload and a ``key`` unique in the queue (a job's
batches are keyed ``"<job id>/<n>"``, so a job id is a prefix for ``counts``/``cancel``).

Why pgqueuer. Both candidates install from wheels and speak psycopg 3. pgqueuer's own dequeue
statement takes a queued task *or* a picked task whose heartbeat is older than a timeout
(``FOR UPDATE SKIP LOCKED``), it keeps a heartbeat per task, re-queues with an attempt count,
and holds failed tasks with their traceback: lease, heartbeat and takeover are the library's,
not ours. procrastinate (3.10) beats per *worker*, and a dead worker's job stays ``doing`` until
the caller lists stalled jobs and retries them itself; it keeps no error text either. We do not
use pgqueuer's ``QueueManager`` loop: it needs ``max_concurrent_tasks >= 2 * batch_size``, so a
worker would hold two tasks at once; the loop here (``work``) takes exactly one, through the
same ``Queries`` calls that loop makes.

Leases. ``work`` runs the (sync, CPU-bound) handler in a thread; meanwhile the event loop sets
the task's ``heartbeat`` to the database's ``now()`` every ``lease_seconds / 3``. Any worker's
dequeue takes a picked task whose heartbeat is older than ``lease_seconds``: a SIGKILLed
worker's task can be taken again between 2/3 and 1 lease after the kill (its last beat was up
to a third of a lease before), and is, by the next worker that is free: an idle one polls every
``lease_seconds / 6`` (at most 1 s), a busy one first finishes its own task. Measured with a
2 s lease and 1 s tasks: taken again 2.0-2.9 s after the kill. A takeover is not an attempt;
a handler that raises is: it is retried after ``RETRY_DELAY``, and its ``MAX_ATTEMPTS``-th raise
fails the task, its error text kept (``failures``). Enqueueing a failed key again re-queues it.

Keys. pgqueuer deletes a finished task's row, so the table ``<queue>_work_keys`` remembers
every key, its task id, whether it is done and its error. Enqueueing writes the key and the
task in one transaction; finishing deletes the task and marks its key done in one transaction,
so a key is queued, running, done or failed, never two of them, and never enqueued twice.

At least once, not exactly once. A worker killed after its handler committed its work but
before the task was marked done runs that task's handler again on another worker; so does a
worker frozen (not killed) for longer than a lease. Each handler must make its own commit
idempotent: the index commit records the task key in the same transaction as the work and
skips a key it already holds.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import socket
import uuid
from contextlib import contextmanager, suppress
from datetime import timedelta
from typing import Any, Callable, Iterator

from ...errors import WorkspaceError
from ...stores.postgres.connect import PASSWORD_ENV, clean_url, password_for

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # a handler's raises before its task fails for good
RETRY_DELAY = timedelta(seconds=0.5)  # a retried task waits this long before it can be taken
STATES = ("queued", "running", "done", "failed")
_QUEUE_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


class WorkQueue:
    """Tasks in Postgres, taken by workers on any machine, each under a lease."""

    def __init__(self, url: str, *, queue: str = "ragcore", lease_seconds: float = 30.0) -> None:
        if not _QUEUE_NAME.fullmatch(queue):
            raise ValueError(f"queue name {queue!r} must be lower-case letters, digits and _ "
                             "(starting with a letter, at most 40): it names the tables")
        if not lease_seconds >= 0.5:
            raise ValueError(f"lease_seconds ({lease_seconds}) must be at least 0.5: a lease "
                             "shorter than a database round trip or two lets tasks run twice")
        self.url = url
        self.queue = queue
        self.lease_seconds = float(lease_seconds)
        self._keys = f"{queue}_work_keys"
        self._settings: Any = None
        self._conn: Any = None  # the connection of the calls outside ``work`` (``_connection``)

    def __repr__(self) -> str:
        return (f"WorkQueue({clean_url(self.url)!r}, queue={self.queue!r}, "
                f"lease_seconds={self.lease_seconds})")

    # -- setting up and adding work --------------------------------------------------------------

    def install(self) -> None:
        """Create the queue's tables if missing (two processes at once: one creates them)."""
        from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment

        with self._connection() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                         (f"ragcore.work_queue install {self.queue}",))
            table = self._tables().queue_table
            if conn.execute("SELECT to_regclass(%s)", (table,)).fetchone()[0] is None:
                conn.execute(QueryBuilderEnvironment(self._pgqueuer()).build_install_query())
            conn.execute(f"CREATE TABLE IF NOT EXISTS {self._keys} (key text PRIMARY KEY, "
                         "job_id bigint NOT NULL, done boolean NOT NULL DEFAULT false, "
                         "error text)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {self._keys}_job_id "
                         f"ON {self._keys} (job_id)")

    def enqueue(self, kind: str, payload: dict, *, key: str) -> bool:
        """Add a task; False (nothing added) when ``key`` is already queued, running or done."""
        if not kind or not key:
            raise ValueError(f"kind ({kind!r}) and key ({key!r}) must both be non-empty")
        try:
            body = json.dumps(payload).encode()
        except (TypeError, ValueError) as exc:
            raise ValueError(f"the payload of task {key!r} is not JSON-able ({exc}): pass "
                             "strings, numbers, lists and dicts") from exc
        with self._connection() as conn, conn.transaction():
            added = conn.execute(f"INSERT INTO {self._keys} (key, job_id) VALUES (%s, 0) "
                                 "ON CONFLICT DO NOTHING RETURNING key", (key,)).fetchone()
            if added is None:
                return self._requeue_failed(conn, key)
            [job_id] = self._sync_queries(conn).enqueue(kind, body, dedupe_key=key)
            conn.execute(f"UPDATE {self._keys} SET job_id = %s WHERE key = %s", (job_id, key))
        return True

    def _requeue_failed(self, conn: Any, key: str) -> bool:
        """Queue a failed key's task again with fresh attempts; False if it had not failed."""
        from psycopg import RawCursor
        from pgqueuer.adapters.persistence.qb import QueryQueueBuilder

        row = conn.execute(
            f"SELECT k.job_id FROM {self._keys} k JOIN {self._tables().queue_table} q "
            "ON q.id = k.job_id WHERE k.key = %s AND q.status = 'failed' FOR UPDATE",
            (key,)).fetchone()
        if row is None:
            return False
        requeue = QueryQueueBuilder(self._pgqueuer()).build_requeue_jobs_query()
        RawCursor(conn).execute(requeue, ([row[0]],))  # pgqueuer's SQL uses $1 placeholders
        conn.execute(f"UPDATE {self._keys} SET error = NULL WHERE key = %s", (key,))
        return True

    # -- looking at and removing work ------------------------------------------------------------

    def counts(self, prefix: str = "") -> dict[str, int]:
        """How many tasks whose key starts with ``prefix`` are queued, running, done, failed."""
        counts = dict.fromkeys(STATES, 0)
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT CASE WHEN k.done THEN 'done' WHEN q.status = 'picked' THEN 'running' "
                "ELSE q.status::text END, count(*) "
                f"FROM {self._keys} k LEFT JOIN {self._tables().queue_table} q "
                "ON q.id = k.job_id WHERE starts_with(k.key, %s) GROUP BY 1", (prefix,))
            for state, n in rows:
                if state in counts:
                    counts[state] = n
        return counts

    def failures(self, prefix: str = "") -> list[tuple[str, str]]:
        """(key, error text) of the failed tasks whose key starts with ``prefix``."""
        with self._connection() as conn:
            return [(key, error or "") for key, error in conn.execute(
                f"SELECT k.key, k.error FROM {self._keys} k JOIN "
                f"{self._tables().queue_table} q ON q.id = k.job_id "
                "WHERE q.status = 'failed' AND starts_with(k.key, %s) ORDER BY k.key",
                (prefix,))]

    def cancel(self, prefix: str) -> int:
        """Remove the tasks not yet taken whose key starts with ``prefix``; returns how many.

        Running tasks finish (their keys stay); done and failed ones are kept."""
        with self._connection() as conn, conn.transaction():
            return len(conn.execute(
                f"WITH gone AS (DELETE FROM {self._tables().queue_table} q USING {self._keys} k "
                "WHERE q.id = k.job_id AND q.status = 'queued' AND NOT k.done "
                "AND starts_with(k.key, %s) RETURNING q.id) "
                f"DELETE FROM {self._keys} WHERE job_id IN (SELECT id FROM gone) RETURNING key",
                (prefix,)).fetchall())

    # -- working ---------------------------------------------------------------------------------

    def work(self, handlers: dict[str, Callable[[dict], None]], *,
             stop: Callable[[], bool] | None = None, until_empty: bool = False,
             worker: str | None = None) -> int:
        """Take tasks one at a time and run ``handlers[kind](payload)``; returns how many were done.

        Blocks until ``stop()`` is true (checked between tasks and while idle) or, with
        ``until_empty``, until no task of these kinds is queued or running."""
        if not handlers:
            raise ValueError("work needs at least one handler: {kind: function(payload)}")
        import psycopg

        name = worker or f"{socket.gethostname()}:{os.getpid()}"
        try:
            return asyncio.run(_Worker(self, handlers, name).run(stop or (lambda: False),
                                                                 until_empty))
        except psycopg.OperationalError as exc:
            reason = " ".join(str(exc).split())
            raise WorkspaceError(
                f"worker {name} lost the work queue's database at {clean_url(self.url)}: "
                f"{reason}; start the worker again once Postgres is back (a task it held is "
                "taken again after its lease)") from exc

    # -- plumbing --------------------------------------------------------------------------------

    def _pgqueuer(self) -> Any:
        """pgqueuer's names for this queue: its tables are prefixed ``<queue>_``."""
        if self._settings is None:
            try:
                import psycopg  # noqa: F401 - pgqueuer's driver here; its absence, said once
                from pgqueuer.domain.settings import DBSettings
            except ImportError as exc:
                raise WorkspaceError("the work queue needs pgqueuer: "
                                     "pip install 'ragcore[postgres]'") from exc
            self._settings = DBSettings(prefix=f"{self.queue}_")
        return self._settings

    def _tables(self) -> Any:
        return self._pgqueuer().qualified

    def _sync_queries(self, conn: Any) -> Any:
        from pgqueuer.adapters.drivers.psycopg import SyncPsycopgDriver
        from pgqueuer.adapters.persistence.qb import QueryQueueBuilder
        from pgqueuer.adapters.persistence.queries import SyncQueries

        return SyncQueries(SyncPsycopgDriver(conn), qbq=QueryQueueBuilder(self._pgqueuer()))

    def _connect_options(self) -> dict[str, Any]:
        options: dict[str, Any] = {"autocommit": True, "connect_timeout": 10}
        password = password_for(self.url)
        if password is not None:
            options["password"] = password
        return options

    def _unreachable(self, exc: Exception) -> WorkspaceError:
        reason = " ".join(str(exc).split())
        return WorkspaceError(f"cannot reach the work queue's database at {clean_url(self.url)}: "
                              f"{reason}; check that Postgres runs there and, if it asks for a "
                              f"password, set ${PASSWORD_ENV}")

    def close(self) -> None:
        """Close the connection this queue kept for its calls (``work`` has its own)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        """An autocommit connection, opened on the first call and kept for this queue's later
        ones (queueing a thousand batches, or listing every job's progress, opens one; the
        worker loop has its own)."""
        import psycopg

        self._pgqueuer()
        if self._conn is None or self._conn.closed or self._conn.broken:
            try:
                self._conn = psycopg.connect(clean_url(self.url), **self._connect_options())
            except psycopg.OperationalError as exc:
                raise self._unreachable(exc) from exc
        yield self._conn

    async def _async_connection(self) -> Any:
        import psycopg

        self._pgqueuer()
        try:
            return await psycopg.AsyncConnection.connect(clean_url(self.url),
                                                         **self._connect_options())
        except psycopg.OperationalError as exc:
            raise self._unreachable(exc) from exc


class _Worker:
    """One ``work`` call: its connection, its pgqueuer identity, the task it holds."""

    def __init__(self, queue: WorkQueue, handlers: dict[str, Callable[[dict], None]],
                 name: str) -> None:
        self.queue = queue
        self.handlers = handlers
        self.name = name
        self.lease = timedelta(seconds=queue.lease_seconds)
        self.poll = min(1.0, queue.lease_seconds / 6)
        self.done = 0

    async def run(self, stop: Callable[[], bool], until_empty: bool) -> int:
        from pgqueuer.adapters.drivers.psycopg import PsycopgDriver
        from pgqueuer.adapters.persistence.qb import QueryBuilderEnvironment, QueryQueueBuilder
        from pgqueuer.adapters.persistence.queries import Queries
        from pgqueuer.ports.repository import EntrypointExecutionParameter

        settings = self.queue._pgqueuer()
        conn = await self.queue._async_connection()
        async with conn:
            self.conn = conn
            self.queries = Queries(PsycopgDriver(conn), qbe=QueryBuilderEnvironment(settings),
                                   qbq=QueryQueueBuilder(settings))
            kinds = {kind: EntrypointExecutionParameter(concurrency_limit=0)
                     for kind in self.handlers}
            manager = uuid.uuid4()
            while not stop():
                jobs = await self.queries.dequeue(1, kinds, manager, None, self.lease)
                if jobs:
                    await self._run(jobs[0])
                elif until_empty and not await self._work_left():
                    break
                else:
                    await asyncio.sleep(self.poll)
        return self.done

    async def _work_left(self) -> bool:
        """Is a task of our kinds queued (perhaps waiting to retry) or picked? A picked one
        whose worker died is taken by a later dequeue, so it counts as work left too."""
        cursor = await self.conn.execute(
            f"SELECT EXISTS (SELECT 1 FROM {self.queue._tables().queue_table} "
            "WHERE entrypoint = ANY(%s) AND status IN ('queued', 'picked'))",
            (list(self.handlers),))
        return bool((await cursor.fetchone())[0])

    async def _run(self, job: Any) -> None:
        """Run one task's handler in a thread while this loop renews its lease."""
        stopped = asyncio.Event()
        beat = asyncio.create_task(self._heartbeat(job.id, stopped))
        try:
            payload = json.loads(job.payload)
            await asyncio.to_thread(self.handlers[job.entrypoint], payload)
        except Exception as exc:  # noqa: BLE001 - a handler's error is the task's, kept below
            error = exc
        else:
            error = None
        finally:
            stopped.set()
            await beat
        if error is None:
            await self._finish(job, "successful", None)
            self.done += 1
        else:
            await self._failed(job, error)

    async def _heartbeat(self, job_id: int, stopped: asyncio.Event) -> None:
        """Renew the lease every third of it until ``stopped`` (never cancelled mid-query)."""
        while True:
            with suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stopped.wait(), self.lease.total_seconds() / 3)
            if stopped.is_set():
                return
            try:
                await self.queries.update_heartbeat([job_id])
            except Exception as exc:  # noqa: BLE001 - the next beat tries again
                logger.warning("worker %s could not renew the lease of task %s: %s",
                               self.name, job_id, exc)

    async def _failed(self, job: Any, exc: Exception) -> None:
        from pgqueuer.domain.models import TracebackRecord

        record = TracebackRecord.from_exception(exc, job.id, {"worker": self.name})
        attempt = job.attempts + 1
        if attempt < MAX_ATTEMPTS:
            logger.warning("worker %s: task %s (%s) raised on attempt %d of %d, retrying: %s",
                           self.name, job.id, job.entrypoint, attempt, MAX_ATTEMPTS, exc)
            await self.queries.retry_job(job, RETRY_DELAY, record)
            return
        logger.error("worker %s: task %s (%s) failed after %d attempts: %s",
                     self.name, job.id, job.entrypoint, attempt, exc)
        await self._finish(job, "failed", record, error=f"{type(exc).__name__}: {exc}")

    async def _finish(self, job: Any, status: str, record: Any, *, error: str = "") -> None:
        """End the task (pgqueuer deletes a done one, holds a failed one) and note its key,
        in one transaction: a key is never both running and done."""
        async with self.conn.transaction():
            await self.queries.log_jobs([(job, status, record)])
            await self.conn.execute(
                f"UPDATE {self.queue._keys} SET done = %s, error = %s WHERE job_id = %s",
                (status == "successful", error or None, job.id))
