"""The job journal in the shared Postgres database (``jobs_pg``): the file journal's surface, a
heartbeat instead of the pid check, and cancel requests no save can lose. Two journals on one
database stand for two app servers."""

from __future__ import annotations

import time

import pytest

from ragcore.workspace.jobs.journal import Job, JobJournal
from ragcore.workspace.jobs.journal_pg import PgJobJournal, open_journal
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.team.pg_team_db import open_pg_team_db
from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database


@pytest.fixture
def url(pg_team_url):
    return pg_team_url


@pytest.fixture
def servers(url):
    """Two journals on one database, as two app servers have."""
    pair = [PgJobJournal(open_pg_team_db(url), heartbeat=0.1, stale=1.0) for _ in range(2)]
    yield pair
    for journal in pair:
        journal.close()


def test_the_workspace_journal_is_the_database_when_the_url_is_set(url, tmp_path, monkeypatch):
    assert isinstance(open_journal(tmp_path), PgJobJournal)
    assert open_journal(tmp_path) is open_journal(tmp_path)  # one connection per process
    monkeypatch.delenv("RAGCORE_DATABASE_URL")
    assert isinstance(open_journal(tmp_path), JobJournal)


def test_a_job_saved_on_one_server_is_listed_on_the_other(servers):
    one, other = servers
    older = Job("ingest", "docs", files=["a.txt"], index_display="Docs")
    newer = Job("delete", "docs", target="a.txt", state="done")
    one.save(older)
    one.save(newer)
    assert [j.id for j in other.all()] == [newer.id, older.id]
    assert other.load(older.id) == older and other.load("no-such-job") is None
    other.delete(newer.id)
    assert [j.id for j in one.all()] == [older.id]


def test_a_cancel_request_survives_the_owners_saves_until_cleared(servers):
    owner, other = servers
    job = Job("ingest", "docs", state="embedding")
    owner.save(job)
    other.request_cancel(job.id)
    job.chunks_done = 10
    owner.save(job)  # progress written after the request does not clear it
    assert owner.cancel_requested(job.id)
    owner.clear_cancel(job.id)
    assert not other.cancel_requested(job.id)


def _beat_of(journal, job) -> float:
    return journal.db.one("SELECT heartbeat FROM jobs WHERE id = ?", (job.id,))["heartbeat"]


def _eventually(check, seconds: float = 15.0) -> None:
    """Wait until ``check()`` holds (a loaded machine may be slow to beat or to go stale)."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not in time"
        time.sleep(0.1)


def test_the_heartbeat_says_whether_the_owner_lives(servers):
    owner, other = servers
    job = Job("ingest", "docs", state="embedding")
    owner.save(job)
    other.save(job)  # another server's save (a rename) takes neither the job nor its beat
    assert owner.owner_alive(job) and other.owner_alive(job)
    first = _beat_of(other, job)
    _eventually(lambda: _beat_of(other, job) > first)  # the owner's thread keeps beating
    owner._stop.set()  # the owner's process is gone: no more beats
    _eventually(lambda: not other.owner_alive(job))  # a second without a beat: gone
    assert owner.owner_alive(job)  # the owner itself never doubts


def test_prune_keeps_the_newest_finished_jobs(servers):
    journal = servers[0]
    jobs = [Job("delete", "docs", target=f"{n}.txt", state="done") for n in range(5)]
    running = Job("ingest", "docs", state="reading")
    for job in [*jobs, running]:
        journal.save(job)
    journal.prune(keep=2)
    assert {j.id for j in journal.all()} == {running.id, jobs[-1].id, jobs[-2].id}


def test_a_runner_marks_a_job_interrupted_when_its_server_stopped_beating(url, tmp_path,
                                                                          servers):
    owner, _ = servers
    job = Job("ingest", "docs", files=["a.txt"], state="embedding")
    owner.save(job)
    runner = JobRunner(tmp_path)  # another server's runner, on the process's journal
    runner.journal.stale = 1.0
    assert runner.jobs()[0].state == "embedding"  # its server beats
    owner._stop.set()
    _eventually(lambda: runner.jobs()[0].state == "interrupted")
    assert "stopped when its process ended" in runner.jobs()[0].summary
    assert not runner.cancel(job.id)


def test_a_journal_write_the_database_refuses_is_an_os_error_as_with_files(servers):
    from ragcore.testing.engines import free_port

    journal = servers[0]
    journal.db.url = f"postgresql://nobody@127.0.0.1:{free_port()}/gone"  # the server went away
    journal.db.connection.close()
    with pytest.raises(OSError, match="cannot write the job journal"):
        journal.save(Job("ingest", "docs"))  # the runner logs it and the job goes on


def test_the_heartbeat_stops_when_no_job_runs_and_starts_with_the_next(servers):
    journal = servers[0]
    job = Job("ingest", "docs", state="embedding")
    journal.save(job)
    assert journal._beating is not None
    job.state = "done"
    journal.save(job)
    _eventually(lambda: journal._beating is None)  # a beat found nothing running
    journal.save(Job("ingest", "docs", state="reading"))
    assert journal._beating is not None
