"""Jobs across processes: `ragcore ingest` runs in its own process; another process (the app)
sees its job in the journal, cancels it, and sees it as interrupted when its process died.

The CLI runs for real in a subprocess, with the hashing embedder slowed down (a few ms per
chunk) so the job runs for many seconds: the test cancels it from a ``JobRunner`` of this
process, as the app's sidebar does, and checks what a person would: the command says it was
cancelled and exits 130, the index keeps the batches saved before and loads, and the journal
says "cancelled".
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ragcore.index import VectorStoreIndex
from ragcore.workspace.jobs.journal import Job, JobJournal, pid_alive, process_started
from ragcore.workspace.jobs.runner import JobRunner

pytestmark = pytest.mark.slow

WAIT = 120  # seconds; only reached when something is wrong

SLOW_CLI = textwrap.dedent("""
    import sys, time
    from ragcore.cli import main
    from ragcore.embeddings.fake import FakeEmbedder

    class SlowEmbedder(FakeEmbedder):
        def embed_batch(self, texts):
            time.sleep(0.004 * len(texts))
            return super().embed_batch(texts)

    sys.exit(main(sys.argv[1:], embedder=SlowEmbedder()))
""")


def _big_text(path: Path) -> Path:
    path.write_text("\n\n".join(
        f"Paragraph {i} tells about the river, the mill and the miller's {i} sacks of grain, "
        f"the winter of {1800 + i % 200} and the owls in the barn." for i in range(12000)))
    return path


def _start_cli(root: Path, source: Path, *extra: str,
               seconds_per_chunk: float = 0.004) -> subprocess.Popen:
    script = SLOW_CLI.replace("0.004", repr(seconds_per_chunk))
    return subprocess.Popen(
        [sys.executable, "-c", script, "ingest", str(source), "--index", "big",
         "--workspace", str(root), "--batch-chunks", "100", "--batch-seconds", "0.5", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _cli_job(root: Path, process: subprocess.Popen) -> Job:
    """The CLI's job, once the journal shows it embedding with a batch saved."""
    manifest = root / "indexes" / "big" / "manifest.json"
    deadline = time.monotonic() + WAIT
    while True:
        jobs = [j for j in JobRunner(root).jobs() if j.pid == process.pid]
        if jobs and jobs[0].active and manifest.exists() and jobs[0].saved_files == [] \
                and jobs[0].state == "embedding":
            return jobs[0]
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"no saved batch in time: {jobs}"
        time.sleep(0.1)


def test_another_process_cancels_a_cli_ingest_which_keeps_its_saved_batches(tmp_path):
    root = tmp_path / "ws"
    process = _start_cli(root, _big_text(tmp_path / "big.txt"))
    try:
        job = _cli_job(root, process)
        app = JobRunner(root)  # as the app's runner: it did not start the job
        assert job.origin == "command line" and job.title() == "Index big.txt into “big”"
        assert app.cancel(job.id)
        listed = {j.id: j for j in app.jobs()}[job.id]
        assert listed.active and listed.cancel_requested  # shown as stopping meanwhile
        out, err = process.communicate(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert "Cancelled from another process" in err and "Cancelled." in err
    assert "Traceback" not in err
    finished = JobJournal(root / "jobs").load(job.id)
    assert finished.state == "cancelled" and finished.report["cancelled"] is True
    assert not (root / "jobs" / f"{job.id}.cancel").exists()  # the request is cleared
    index = VectorStoreIndex.load(root / "indexes" / "big")
    assert 0 < len(index) == finished.report["chunks"] < finished.chunks_total
    assert not app.cancel(job.id)  # over: nothing left to cancel


def test_a_cli_job_whose_process_died_shows_as_interrupted_and_cannot_be_cancelled(tmp_path):
    root = tmp_path / "ws"
    process = _start_cli(root, _big_text(tmp_path / "big.txt"))
    try:
        job = _cli_job(root, process)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=WAIT)
    app = JobRunner(root)
    listed = {j.id: j for j in app.jobs()}[job.id]
    assert listed.state == "interrupted" and "process ended" in listed.summary
    assert not app.cancel(job.id)
    assert not (root / "jobs" / f"{job.id}.cancel").exists()
    assert len(VectorStoreIndex.load(root / "indexes" / "big")) > 0


def test_a_reused_pid_is_not_taken_for_the_job_owner():
    started = process_started(os.getpid())
    if not started:
        pytest.skip("no /proc here to tell when a process started")
    assert pid_alive(os.getpid(), started)
    # A pid that runs, but started at another time: another process that got the old pid.
    assert not pid_alive(os.getppid(), str(int(process_started(os.getppid())) + 1))
    assert not pid_alive(os.getpid(), str(int(started) + 1))


def test_the_cli_says_which_job_of_another_process_it_waits_for(tmp_path):
    root = tmp_path / "ws"
    owner = subprocess.Popen(["sleep", "120"])
    try:
        JobJournal(root / "jobs").save(Job("ingest", "big", files=["report.pdf"],
                                           state="embedding", pid=owner.pid,
                                           pid_started=process_started(owner.pid)))
        source = tmp_path / "owls.txt"
        source.write_text("Owls hunt at night.")
        process = _start_cli(root, source)
        deadline = time.monotonic() + WAIT
        while not any(j.waiting_for for j in JobRunner(root).jobs() if j.pid == process.pid):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the CLI's job never said it waits"
            time.sleep(0.1)
        owner.kill()
        owner.wait(timeout=WAIT)
        out, err = process.communicate(timeout=WAIT)
    finally:
        owner.kill()
    assert process.returncode == 0, err
    assert (f"Waiting for Index report.pdf into “big” (process {owner.pid}) to finish"
            in err)
    assert "1 indexed" in out
