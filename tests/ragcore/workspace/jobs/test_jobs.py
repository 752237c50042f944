"""Background jobs (ragcore.workspace.jobs.runner): queue order per index, parallel indexes,
cancel keeping the saved batches, failure isolation, the journal and resuming after a restart.

The embedders here are the FakeEmbedder held at a gate (a threading.Event), so a test decides
when a job may go on instead of sleeping and hoping.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.workspace import Workspace
from ragcore.workspace.ingest.commits import PARTIAL_KEY, Batching
from ragcore.workspace.jobs.journal import Job, JobJournal
from ragcore.workspace.jobs.runner import JobRunner

WAIT = 60  # seconds: generous, only reached when something is wrong


class GatedEmbedder(FakeEmbedder):
    """Embeds only while ``gate`` is open; counts the batches it embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()
        self.waiting = threading.Event()
        self.batches = 0

    def embed_batch(self, texts):
        self.waiting.set()
        assert self.gate.wait(WAIT), "the test never opened the gate"
        self.batches += 1
        return super().embed_batch(texts)


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.fixture
def files(tmp_path):
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "owls.txt").write_text("Owls hunt at night and see well in the dark.")
    (folder / "bats.txt").write_text("Bats find insects by echolocation.")
    (folder / "big.txt").write_text("\n\n".join(
        f"Paragraph {i} tells about the river, the mill and the miller's {i} sacks of grain."
        for i in range(3000)))
    return folder


def test_jobs_on_one_index_run_in_order(tmp_path, files):
    embedder = GatedEmbedder()
    ws = Workspace(tmp_path / "ws", embedder=embedder)
    runner = JobRunner(ws.root)
    first = runner.ingest(ws, "docs", [files / "owls.txt"])
    second = runner.ingest(ws, "docs", [files / "bats.txt"])
    third = runner.delete(ws, "docs", "owls.txt")
    assert embedder.waiting.wait(WAIT)
    assert first.state == "embedding" and second.state == "queued" and third.state == "queued"
    embedder.gate.set()
    assert runner.wait_idle(WAIT)
    assert [j.state for j in (first, second, third)] == ["done", "done", "done"]
    assert first.finished <= second.started and second.finished <= third.started
    assert [r["file"] for r in ws.documents("docs")] == ["bats.txt"]
    assert third.summary == "removed 1 document"


def test_jobs_on_different_indexes_run_side_by_side(tmp_path, files):
    gated = GatedEmbedder()
    root = tmp_path / "ws"
    runner = JobRunner(root)
    slow = runner.ingest(Workspace(root, embedder=gated), "big", [files / "big.txt"])
    assert gated.waiting.wait(WAIT)
    quick = runner.ingest(Workspace(root, embedder=FakeEmbedder()), "small",
                          [files / "owls.txt"])
    runner.wait(quick.id, WAIT)
    assert quick.state == "done" and slow.active  # the other index did not wait for it
    gated.gate.set()
    runner.wait(slow.id, WAIT)
    assert slow.state == "done"


def test_cancel_keeps_the_saved_batches_and_the_index_loads(tmp_path, files):
    embedder = GatedEmbedder()
    ws = Workspace(tmp_path / "ws", embedder=embedder)
    runner = JobRunner(ws.root, batching=Batching(chunks=40, seconds=3600, slice=20))
    job = runner.ingest(ws, "docs", [files / "owls.txt", files / "big.txt", files / "bats.txt"])
    embedder.gate.set()
    _until(lambda: len(job.saved_files) >= 1 and embedder.batches >= 4, "a saved batch")
    embedder.gate.clear()  # hold it mid-file, then cancel
    runner.cancel(job.id)
    embedder.gate.set()
    runner.wait(job.id, WAIT)
    assert job.state == "cancelled" and job.cancel_requested
    index = VectorStoreIndex.load(ws.index_path("docs"))
    rows = {r["file"]: r for r in ws.documents("docs")}
    assert rows["owls.txt"]["incomplete"] is False
    assert "bats.txt" not in rows  # never started
    big = rows["big.txt"]
    assert big["incomplete"] is True and 0 < big["chunks"]
    info = index.doc_info(big["doc_ids"][0])
    done, total = (int(x) for x in info.metadata[PARTIAL_KEY].split(" chunks")[0].split(" of "))
    assert done == big["chunks"] < total
    report = job.report
    assert report["cancelled"] is True and report["commits"] >= 2
    # Ingesting again completes the partial file and removes the mark.
    again = ws.ingest("docs", [files / "big.txt", files / "bats.txt"])
    assert again.indexed == 2
    rows = {r["file"]: r for r in ws.documents("docs")}
    assert rows["big.txt"]["incomplete"] is False and rows["big.txt"]["chunks"] == total


def test_a_queued_job_is_cancelled_at_once(tmp_path, files):
    embedder = GatedEmbedder()
    ws = Workspace(tmp_path / "ws", embedder=embedder)
    runner = JobRunner(ws.root)
    running = runner.ingest(ws, "docs", [files / "owls.txt"])
    queued = runner.ingest(ws, "docs", [files / "bats.txt"])
    assert embedder.waiting.wait(WAIT)
    assert runner.cancel(queued.id)
    assert queued.state == "cancelled"
    embedder.gate.set()
    runner.wait(running.id, WAIT)
    assert running.state == "done"
    assert [r["file"] for r in ws.documents("docs")] == ["owls.txt"]


def test_a_failed_job_does_not_stop_the_next_one(tmp_path, files):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    runner = JobRunner(ws.root)
    ws.ingest("docs", [files / "owls.txt"])
    bad = runner.reindex(ws, "docs", "no-such-file.txt")
    good = runner.ingest(ws, "docs", [files / "bats.txt"])
    assert runner.wait_idle(WAIT)
    assert bad.state == "failed" and "no document 'no-such-file.txt'" in bad.summary
    assert "owls.txt" in bad.summary  # the error lists the files there are
    assert good.state == "done"
    assert sorted(r["file"] for r in ws.documents("docs")) == ["bats.txt", "owls.txt"]


def test_progress_has_states_and_an_estimate(tmp_path, files):
    embedder = GatedEmbedder()
    ws = Workspace(tmp_path / "ws", embedder=embedder)
    runner = JobRunner(ws.root, batching=Batching(slice=10))
    seen: list[str] = []
    job = runner.ingest(ws, "docs", [files / "big.txt"], listener=lambda e: seen.append(e.stage))
    assert embedder.waiting.wait(WAIT)
    job.rate = 100.0  # as if this computer's rate had been measured: 100 chunks a second
    embedder.gate.set()
    _until(lambda: job.chunks_done >= 20 or not job.active, "some chunks")
    status = job.status()
    runner.wait(job.id, WAIT)
    if job.chunks_total:  # caught while embedding
        # one file split ahead: its passages are counted exactly, said without "about"
        assert status.startswith("indexing passage ") and f" of {job.work_total} " in status
        assert "embedding" not in status and "left" in status
    assert {"reading", "splitting", "embedding", "saving", "done"} <= set(seen)
    assert job.state == "done" and job.fraction == 1.0


def test_the_journal_shows_jobs_after_a_restart_and_resumes_unfinished_ones(tmp_path, files):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    runner = JobRunner(ws.root)
    done = runner.ingest(ws, "docs", [files / "owls.txt"])
    runner.wait(done.id, WAIT)
    # A job whose process died mid-way: it had saved owls.txt, not bats.txt.
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    lost = Job("ingest", "docs", files=[str(files / "owls.txt"), str(files / "bats.txt")],
               state="embedding", saved_files=[str(files / "owls.txt")],
               pid=int(dead.stdout))
    JobJournal(ws.root / "jobs").save(lost)

    restarted = JobRunner(ws.root)  # as after an app restart
    listed = {j.id: j for j in restarted.jobs()}
    assert listed[done.id].state == "done" and "1 indexed" in listed[done.id].summary
    assert listed[lost.id].state == "interrupted"
    assert "1 of 2 files saved" in listed[lost.id].summary
    assert JobJournal(ws.root / "jobs").load(lost.id).state == "interrupted"  # written back
    resumed = restarted.resume(ws, lost.id)
    assert resumed.files == [str(files / "bats.txt")] and resumed.resumed_from == lost.id
    restarted.wait(resumed.id, WAIT)
    assert resumed.state == "done"
    assert sorted(r["file"] for r in ws.documents("docs")) == ["bats.txt", "owls.txt"]
    restarted.forget(lost.id)
    assert lost.id not in {j.id for j in JobRunner(ws.root).jobs()}


def test_stray_uploads_are_those_no_document_comes_from(tmp_path):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    kept = ws.save_upload("docs", "kept.txt", b"Owls hunt at night.")
    stray = ws.save_upload("docs", "stray.txt", b"Never indexed.")
    ws.ingest("docs", [kept])
    runner = JobRunner(ws.root)
    indexed = {r["id_base"] for r in ws.documents("docs")}
    assert runner.stray_uploads(ws, "docs", indexed) == [stray]


def test_a_folder_left_by_a_killed_first_save_holds_no_index_and_the_next_ingest_works(
        tmp_path, files):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.create_index("docs")
    folder = ws.index_path("docs")
    folder.mkdir(parents=True)  # what a kill during the very first save can leave
    assert ws.index_info("docs").nodes == 0 and ws.documents("docs") == []
    assert len(ws.load_index("docs")) == 0
    report = ws.ingest("docs", [files / "owls.txt"])
    assert report.indexed == 1 and len(ws.load_index("docs")) == 1


def test_a_file_going_on_after_a_saved_batch_shows_embedding_not_writing(tmp_path, files):
    saved = tmp_path / "ws" / "indexes" / "docs" / "manifest.json"

    class HeldAfterFirstSave(FakeEmbedder):
        """Embeds freely until the index is first saved; the next slice waits for the gate."""

        def __init__(self) -> None:
            super().__init__()
            self.gate, self.waiting = threading.Event(), threading.Event()

        def embed_batch(self, texts):
            if saved.exists():
                self.waiting.set()
                assert self.gate.wait(WAIT), "the test never opened the gate"
            return super().embed_batch(texts)

    embedder = HeldAfterFirstSave()
    ws = Workspace(tmp_path / "ws", embedder=embedder)
    runner = JobRunner(ws.root, batching=Batching(chunks=40, seconds=3600, slice=20))
    job = runner.ingest(ws, "docs", [files / "big.txt"])
    assert embedder.waiting.wait(WAIT)  # the slice after the first save is held
    assert job.state == "embedding" and 0 < job.chunks_done < job.chunks_total
    assert "indexing passage" in JobJournal(ws.root / "jobs").load(job.id).status()
    embedder.gate.set()
    assert runner.wait(job.id, WAIT).state == "done"


def test_a_job_id_reads_the_clock_once(monkeypatch):
    """Seconds and nanoseconds of one moment: read apart, an id made at a second's end could
    sort before the ids made earlier in that second (a job ahead of another looked behind it)."""
    import time

    from ragcore.workspace.jobs.journal import new_job_id

    readings = iter([1_700_000_000_999_999_999, 1_700_000_001_000_000_100])
    monkeypatch.setattr(time, "time_ns", lambda: next(readings))
    monkeypatch.setattr(time, "time", lambda: 1_700_000_001.0000001)
    first, second = new_job_id(), new_job_id()
    assert first < second
    assert first.split("-")[1] == time.strftime("%H%M%S", time.localtime(1_700_000_000))


def test_an_upload_s_progress_says_indexing_not_embedding():
    # Issue 66: "embedding 192 of about 935 passages" is jargon to someone uploading files.
    job = Job("ingest", "docs", state="embedding", work_done=192, work_total=935)
    assert job.status().startswith("indexing passage 192 of about 935")
    assert "embedding" not in Job("ingest", "docs", state="embedding").status()
