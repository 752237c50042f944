"""The Postgres work queue on a real Postgres: keys added once, counted and cancelled by prefix,
a raising handler retried then failed, a lease renewed while a long handler runs, and a
SIGKILLed worker process's task finished by another worker, each task committed exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import psycopg
import pytest

from ragcore.testing.engines import PG_PASSWORD
from ragcore.workspace.jobs.work_queue import MAX_ATTEMPTS, WorkQueue
from support.team_backends import drop_database, fresh_database

REPO = Path(__file__).resolve().parents[4]

# A worker process: each task marks itself started (autocommit), works for a second, then
# commits its result idempotently, the way the index commit records its task key.
WORKER = """
import os, sys, time
import psycopg
from ragcore.workspace.jobs.work_queue import WorkQueue

url, lease = sys.argv[1], float(sys.argv[2])

def mark(payload):
    key = payload["key"]
    with psycopg.connect(url, password=os.environ["RAGCORE_PG_PASSWORD"], autocommit=True) as conn:
        conn.execute("INSERT INTO started (key, pid) VALUES (%s, %s)", (key, os.getpid()))
        time.sleep(1.0)
        with conn.transaction():
            if conn.execute("INSERT INTO done_marks (key) VALUES (%s) ON CONFLICT DO NOTHING "
                            "RETURNING key", (key,)).fetchone():
                conn.execute("INSERT INTO runs (key, pid) VALUES (%s, %s)", (key, os.getpid()))

print(WorkQueue(url, lease_seconds=lease).work({"mark": mark}, until_empty=True), flush=True)
"""


@pytest.fixture
def url(postgres_url):
    url = fresh_database(postgres_url)
    yield url
    drop_database(url)


@pytest.fixture
def queue(url):
    queue = WorkQueue(url, lease_seconds=2.0)
    queue.install()
    return queue


def _sql(url: str, query: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(url, password=PG_PASSWORD, autocommit=True) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else []


def test_install_twice_at_once_then_again(url):
    queues = [WorkQueue(url), WorkQueue(url)]
    threads = [threading.Thread(target=q.install) for q in queues]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    queues[0].install()
    assert queues[1].counts() == {"queued": 0, "running": 0, "done": 0, "failed": 0}


def test_a_key_is_added_once_counted_and_cancelled_by_prefix(queue):
    assert queue.enqueue("embed", {"files": ["a.txt"]}, key="job1/0")
    assert not queue.enqueue("embed", {"files": ["other.txt"]}, key="job1/0")
    assert queue.enqueue("embed", {"files": ["b.txt"]}, key="job1/1")
    assert queue.enqueue("embed", {"files": ["c.txt"]}, key="job2/0")
    assert queue.counts("job1/") == {"queued": 2, "running": 0, "done": 0, "failed": 0}
    assert queue.counts()["queued"] == 3

    seen = []
    assert queue.work({"embed": seen.append}, stop=lambda: len(seen) == 1) == 1
    assert seen == [{"files": ["a.txt"]}]  # the first payload, not the duplicate's
    assert not queue.enqueue("embed", {"files": ["a.txt"]}, key="job1/0")  # done: not again

    assert queue.cancel("job1/") == 1  # job1/1; job1/0 is done and stays
    assert queue.counts("job1/") == {"queued": 0, "running": 0, "done": 1, "failed": 0}
    assert queue.counts("job2/")["queued"] == 1
    assert queue.enqueue("embed", {"files": ["b.txt"]}, key="job1/1")  # cancelled: may come back


def test_a_raising_handler_is_retried_then_failed_with_its_error(queue):
    calls = []

    def broken(payload):
        calls.append(payload)
        raise RuntimeError(f"cannot read {payload['file']}: check its permissions")

    queue.enqueue("read", {"file": "locked.pdf"}, key="job7/0")
    queue.enqueue("read", {"file": "fine.txt"}, key="job7/1")
    done = queue.work({"read": lambda p: broken(p) if p["file"] == "locked.pdf" else None},
                      until_empty=True)
    assert done == 1
    assert len(calls) == MAX_ATTEMPTS == 3
    assert queue.counts("job7/") == {"queued": 0, "running": 0, "done": 1, "failed": 1}
    assert queue.failures("job7/") == [
        ("job7/0", "RuntimeError: cannot read locked.pdf: check its permissions")]
    assert queue.failures("job8/") == []

    # Enqueueing a failed key again gives it fresh attempts.
    assert queue.enqueue("read", {"file": "locked.pdf"}, key="job7/0")
    assert queue.work({"read": lambda p: None}, until_empty=True) == 1
    assert queue.counts("job7/")["done"] == 2 and queue.failures() == []


def test_a_long_handler_keeps_its_lease(url):
    """A handler running three leases long is not taken by another worker meanwhile."""
    queue = WorkQueue(url, lease_seconds=1.5)  # beats every 0.5 s: 1 s of slack on a busy CI
    queue.install()
    queue.enqueue("slow", {}, key="job3/0")
    runs = []

    def slow(payload):
        runs.append(threading.get_ident())
        time.sleep(4.5)

    first = threading.Thread(target=queue.work, args=({"slow": slow},),
                             kwargs={"until_empty": True})
    first.start()
    while not runs:
        time.sleep(0.05)
    # A second worker polls while the first one's handler sleeps past its lease three times.
    assert queue.work({"slow": slow}, until_empty=True) == 0
    first.join()
    assert len(runs) == 1
    assert queue.counts("job3/") == {"queued": 0, "running": 0, "done": 1, "failed": 0}


def _start_worker(url: str, lease: float) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO), RAGCORE_PG_PASSWORD=PG_PASSWORD)
    return subprocess.Popen([sys.executable, "-c", WORKER, url, str(lease)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_killed_workers_task_is_finished_by_another_exactly_once(url):
    lease = 2.0
    queue = WorkQueue(url, lease_seconds=lease)
    queue.install()
    _sql(url, "CREATE TABLE started (key text, pid int)")
    _sql(url, "CREATE TABLE done_marks (key text PRIMARY KEY)")
    _sql(url, "CREATE TABLE runs (key text, pid int)")
    keys = [f"job9/{n}" for n in range(6)]
    for key in keys:
        assert queue.enqueue("mark", {"key": key}, key=key)

    victim, survivor = _start_worker(url, lease), _start_worker(url, lease)
    try:
        held = _wait_for_a_task_in_hand(url, victim.pid)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        out, err = survivor.communicate(timeout=20)
    finally:
        for process in (victim, survivor):
            if process.poll() is None:
                process.kill()
    assert survivor.returncode == 0, err

    assert sorted(k for (k,) in _sql(url, "SELECT key FROM done_marks")) == keys
    runs = _sql(url, "SELECT key, pid FROM runs")
    assert sorted(k for k, _ in runs) == keys  # each task's work committed once
    assert (held, survivor.pid) in runs  # the killed worker's task, finished by the other
    assert queue.counts("job9/") == {"queued": 0, "running": 0, "done": 6, "failed": 0}
    assert int(out.split()[-1]) == sum(pid == survivor.pid for _, pid in runs)


def _wait_for_a_task_in_hand(url: str, pid: int) -> str:
    """The key of a task the worker ``pid`` has started and not yet committed."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        rows = _sql(url, "SELECT key FROM started WHERE pid = %s AND key NOT IN "
                         "(SELECT key FROM done_marks)", (pid,))
        if rows:
            return rows[0][0]
        time.sleep(0.05)
    raise AssertionError(f"worker {pid} took no task within 20 s")
