"""A job queued for an index that another session deletes before it starts (issue 18): it
fails saying so, is marked as of a deleted index (shown without Resume) and makes no index."""

from __future__ import annotations

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.journal import Job
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.names import delete_index
from ragcore.workspace.jobs.resume import resumed_job


def test_a_resume_whose_index_is_deleted_before_it_starts_fails_marked(tmp_path):
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder(dim=8))
    ws.create_index("notes")
    path = ws.save_upload("notes", "a.txt", b"Owls hunt at night. Bats too.")
    old = Job("ingest", "notes", files=[str(path)], state="cancelled",
              index_uid=ws.record("notes").uid)
    job = resumed_job(ws, old)  # checked while the index was there
    delete_index(ws, "notes")  # then deleted from another session
    runner = JobRunner(ws.root)
    done = runner.wait(runner.submit(ws, job).id, 30)
    assert done.state == "failed" and "was deleted" in done.error
    assert done.index_deleted and not ws.has_index("notes")
