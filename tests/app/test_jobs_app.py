"""The app's view of jobs it did not start: a `ragcore ingest` in another process shows in the
sidebar of every page with its origin and a Cancel button that asks that process to stop; once
the process is gone the job shows as interrupted, with Resume and Dismiss.

The other process here is a real one (``sleep``) that the journal names as the job's owner; the
cross-process cancel itself, with the real CLI, is in tests/test_jobs_cross_process.py.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.workspace.jobs.journal import Job, JobJournal, process_started

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90


@pytest.fixture
def ws_root(monkeypatch, tmp_path) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    root.mkdir()
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


@pytest.fixture
def other_process():
    process = subprocess.Popen(["sleep", "120"])
    try:
        yield process
    finally:
        process.kill()
        process.wait(timeout=30)


def _sidebar_text(at: AppTest) -> str:
    parts = [getattr(e, "value", "") for e in at.sidebar.caption]
    parts += [e.proto.text for e in
              at.sidebar.get("progress")]
    return "\n".join(str(p) for p in parts)


def test_the_sidebar_lists_a_cli_job_cancels_it_and_shows_it_interrupted_when_it_died(
        ws_root, other_process):
    journal = JobJournal(ws_root / "jobs")
    job = Job("ingest", "contrats-ete", files=[str(ws_root / "big.txt")], state="embedding",
              index_display="Contrats été", origin="command line", chunks_done=120,
              chunks_total=900, file_count=1, file_number=1, pid=other_process.pid,
              pid_started=process_started(other_process.pid))
    journal.save(job)

    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    text = _sidebar_text(at)
    assert "Index big.txt into “Contrats été”: indexing passage 120 of about 900" in text
    assert f"Started from the command line (process {other_process.pid})" in text
    cancel = [b for b in at.sidebar.button if b.label == "Cancel"]
    assert len(cancel) == 1
    cancel[0].click().run()
    assert journal.cancel_requested(job.id)  # the request the CLI's job looks for
    assert "stopping after this batch" in _sidebar_text(at)
    assert not [b for b in at.sidebar.button if b.label == "Cancel"]

    other_process.kill()
    other_process.wait(timeout=30)
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert "stopped when its process ended" in _sidebar_text(at)
    assert {b.label for b in at.sidebar.button} >= {"Resume", "Dismiss"}
    assert JobJournal(ws_root / "jobs").load(job.id).state == "interrupted"
    assert not journal.cancel_requested(job.id)


def test_a_cancelled_upload_can_be_resumed_from_the_sidebar(ws_root, tmp_path):
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.runner import runner_for

    ws = Workspace(ws_root, embedder=FakeEmbedder())
    ws.create_index("docs")
    upload = ws.save_upload("docs", "owls.txt", b"Owls hunt at night and see well in the dark.")
    JobJournal(ws_root / "jobs").save(Job("ingest", "docs", files=[str(upload)],
                                          state="cancelled", summary="0 indexed"))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    resume = [b for b in at.sidebar.button if b.label == "Resume"]
    assert len(resume) == 1
    resume[0].click().run()
    assert runner_for(ws_root).wait_idle(timeout=TIMEOUT)
    assert [r["file"] for r in ws.documents("docs")] == ["owls.txt"]


def test_deleting_an_index_waits_for_its_running_job(ws_root, other_process, capsys):
    from ragcore.cli import main
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace

    Workspace(ws_root, embedder=FakeEmbedder()).create_index("docs")
    JobJournal(ws_root / "jobs").save(Job("ingest", "docs", files=["big.txt"],
                                          state="embedding", pid=other_process.pid,
                                          pid_started=process_started(other_process.pid)))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page("pages/indexes.py").run()
    next(c for c in at.checkbox if c.label.startswith("I understand")).check().run()
    assert next(b for b in at.button if b.label == "Delete this index").disabled
    assert any("Index big.txt into “docs” is running" in c.value for c in at.caption)
    assert main(["delete-index", "docs", "--yes", "--workspace", str(ws_root)]) == 1
    assert "Index big.txt into “docs” is running" in capsys.readouterr().err
    assert Workspace(ws_root).has_index("docs")
    main(["delete-doc", "big.txt", "--index", "docs", "--workspace", str(ws_root)])
    assert (f"Waiting for Index big.txt into “docs” (process {other_process.pid}) to finish"
            in capsys.readouterr().err)  # the job's process holds the index (here it does not)


def test_a_job_waits_visibly_behind_another_process_job_on_the_same_index(
        ws_root, other_process, tmp_path):
    import time

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.runner import JobRunner

    owls = tmp_path / "owls.txt"
    owls.write_text("Owls hunt at night.")
    ws = Workspace(ws_root, embedder=FakeEmbedder())
    JobJournal(ws_root / "jobs").save(Job("ingest", "docs", files=["big.txt"], state="embedding",
                                          origin="command line", pid=other_process.pid,
                                          pid_started=process_started(other_process.pid)))
    runner = JobRunner(ws_root)
    waiting = runner.ingest(ws, "docs", [owls])
    elsewhere = runner.ingest(ws, "other", [owls])  # another index does not wait
    assert runner.wait(elsewhere.id, TIMEOUT).state == "done"
    behind = f"queued behind Index big.txt into “docs” (process {other_process.pid})"
    deadline = time.monotonic() + TIMEOUT
    while waiting.status() != behind:
        assert time.monotonic() < deadline, waiting.status()
        time.sleep(0.05)
    assert waiting.state == "queued" and not waiting.started
    other_process.kill()
    other_process.wait(timeout=30)
    assert runner.wait(waiting.id, TIMEOUT).state == "done" and not waiting.waiting_for


def test_a_job_waiting_behind_another_process_can_be_cancelled(ws_root, other_process):
    import time

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.runner import JobRunner

    JobJournal(ws_root / "jobs").save(Job("ingest", "docs", state="embedding",
                                          pid=other_process.pid,
                                          pid_started=process_started(other_process.pid)))
    runner = JobRunner(ws_root)
    job = runner.ingest(Workspace(ws_root, embedder=FakeEmbedder()), "docs", ["owls.txt"])
    deadline = time.monotonic() + TIMEOUT
    while not job.waiting_for:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert runner.cancel(job.id)
    assert runner.wait(job.id, TIMEOUT).state == "cancelled"
    assert job.summary == "cancelled before it started"


def test_the_cli_lists_jobs_and_cancels_one_running_elsewhere(ws_root, other_process, capsys):
    from ragcore.cli import main

    journal = JobJournal(ws_root / "jobs")
    running = Job("ingest", "docs", files=["big.txt"], state="embedding", chunks_done=5,
                  chunks_total=50, pid=other_process.pid,
                  pid_started=process_started(other_process.pid))
    done = Job("delete", "docs", target="old.txt", state="done", summary="removed 1 document")
    journal.save(running)
    journal.save(done)
    assert main(["jobs", "--workspace", str(ws_root)]) == 0
    listed = capsys.readouterr().out
    assert running.id in listed and "Index big.txt into “docs”" in listed
    assert "indexing passage 5 of about 50" in listed and f"app (process {other_process.pid})" in listed
    assert "done: removed 1 document" in listed
    assert main(["cancel-job", running.id, "--workspace", str(ws_root)]) == 0
    assert "Asked Index big.txt into “docs”" in capsys.readouterr().out
    assert journal.cancel_requested(running.id)
    assert main(["cancel-job", done.id, "--workspace", str(ws_root)]) == 1
    assert "is not running (done)" in capsys.readouterr().err
    assert main(["cancel-job", "no-such-job", "--workspace", str(ws_root)]) == 1


def test_a_scan_mid_ocr_in_a_fresh_workspace_shows_its_time_left_in_the_sidebar(
        ws_root, other_process):
    """Issue 42: no embedding rate kept yet, two pages of 300 read at 4 s a page: the sidebar
    says OCR's time (the job's estimate, ``Job.status``) and that embedding is not in it."""
    JobJournal(ws_root / "jobs").save(Job(
        "ingest", "scans", files=[str(ws_root / "scan.pdf")], state="reading",
        origin="command line", file_count=1, file_number=1, work_total=1800, ocr_done=2,
        ocr_total=300, ocr_left=298, ocr_page_seconds=4.0, pid=other_process.pid,
        pid_started=process_started(other_process.pid)))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert not at.exception
    assert ("Index scan.pdf into “scans”: reading scanned pages (OCR) 2 of 300 · "
            "OCR: about 20 min left; embedding not measured yet") in _sidebar_text(at)


def test_a_job_finishing_while_the_sidebar_is_drawn_is_listed_once_as_it_was_seen():
    """Issue 66: after an upload finished, the sidebar listed it both as running and as done,
    or twice as done, for one rerun: a job of this process is the object its thread updates,
    so one that finished between the sidebar's look at it and its drawing was drawn from both
    states. The sidebar draws what it saw once."""
    from webapp.indexes.jobs_view import FINISHED_SHOWN, sidebar_lists

    running = Job("ingest", "docs", files=["a.pdf", "b.txt"], state="embedding",
                  work_done=900, work_total=1402)
    older = [Job("ingest", "docs", files=[f"{n}.txt"], state="done") for n in range(6)]
    active, finished = sidebar_lists([running, *older])
    running.state, running.work_done = "done", 1402  # its thread finishes it meanwhile
    listed = [j.id for j in active + finished]
    assert len(listed) == len(set(listed)) and running.id in [j.id for j in active]
    assert all(j.active for j in active) and not any(j.active for j in finished)
    assert active[0].status().startswith("indexing passage 900 of about 1,402")
    assert len(finished) == FINISHED_SHOWN
