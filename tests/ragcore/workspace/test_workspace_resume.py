"""Resume continues from what was saved (issue 18, defect 2): a file whose ingestion was
cancelled, or whose process died, holds its first chunks marked partial; resuming the job (also
after a restart) or ingesting the same file again embeds only the chunks after them, and the
index ends as an uninterrupted ingestion makes it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.ingest.commits import Batching
from ragcore.workspace.jobs.runner import JobRunner

TEXT = " ".join(f"Sentence {i} tells how owls and bats hunt by night, number {i}."
                for i in range(600))
BATCHING = Batching(chunks=8, seconds=60.0, slice=8)


class CountingEmbedder(FakeEmbedder):
    """Counts the texts it embeds; ``stop_at``: cancel the running jobs once that many were."""

    def __init__(self) -> None:
        super().__init__(dim=16)
        self.texts = 0
        self.stop_at = 0
        self.runner: JobRunner | None = None

    def embed_batch(self, texts):
        self.texts += len(texts)
        if self.stop_at and self.texts >= self.stop_at and self.runner is not None:
            for job in self.runner.active():
                self.runner.cancel(job.id)
        return super().embed_batch(texts)


@pytest.fixture
def big(tmp_path) -> Path:
    path = tmp_path / "big.txt"
    path.write_text(TEXT)
    return path


def _uninterrupted(root: Path, big: Path) -> tuple[dict, int]:
    """What an uninterrupted ingestion of the upload makes, in the same folders (the upload's
    path is in its metadata, which takes room in each chunk); the index is deleted after."""
    embedder = CountingEmbedder()
    ws = Workspace(root, embedder=embedder)
    ws.create_index("docs", chunk_size=160, chunk_overlap=0)
    ws.ingest("docs", [ws.save_upload("docs", "big.txt", big.read_bytes())])
    made = _contents(ws)
    ws.delete_index("docs")
    return made, embedder.texts


def _contents(ws: Workspace) -> dict:
    index = ws.load_index("docs")
    nodes = sorted(index.all_nodes(), key=lambda n: n.node_id)
    [doc_id] = index.ref_doc_ids()
    return {"nodes": [(n.node_id, n.text, n.prev_id, n.next_id) for n in nodes],
            "vectors": index.get_vectors([n.node_id for n in nodes]),
            "hash": index.doc_info(doc_id).hash}


def _same_index(ws: Workspace, reference: dict) -> None:
    made = _contents(ws)
    assert made["nodes"] == reference["nodes"] and made["hash"] == reference["hash"]
    assert np.allclose(made["vectors"], reference["vectors"])
    assert not any(r["incomplete"] for r in ws.documents("docs"))


def _cancelled_part_way(root: Path, big: Path, total: int) -> tuple[CountingEmbedder, str, int]:
    embedder = CountingEmbedder()
    ws = Workspace(root, embedder=embedder)
    ws.create_index("docs", chunk_size=160, chunk_overlap=0)
    runner = embedder.runner = JobRunner(root, batching=BATCHING)
    embedder.stop_at = total // 3
    upload = ws.save_upload("docs", "big.txt", big.read_bytes())
    job = runner.wait(runner.ingest(ws, "docs", [upload]).id, 60)
    assert job.state == "cancelled"
    [row] = ws.documents("docs")
    assert row["incomplete"] and 0 < row["chunks"] < total
    return embedder, job.id, row["chunks"]


@pytest.fixture
def stopped(tmp_path, big):
    """An upload whose ingestion was cancelled a third of the way, the embedder's count reset:
    (root, what an uninterrupted ingestion makes, its chunks, embedder, job id, chunks saved)."""
    root = tmp_path / "ws"
    reference, total = _uninterrupted(root, big)
    embedder, job_id, saved = _cancelled_part_way(root, big, total)
    embedder.texts, embedder.stop_at = 0, 0
    return root, reference, total, embedder, job_id, saved


def test_resume_after_a_restart_embeds_only_the_chunks_not_saved(stopped):
    root, reference, total, embedder, job_id, saved = stopped
    ws = Workspace(root, embedder=embedder)  # a restart: a new workspace and job runner
    runner = embedder.runner = JobRunner(root, batching=BATCHING)
    job = runner.wait(runner.resume(ws, job_id).id, 60)
    assert job.state == "done", job.status()
    assert embedder.texts == total - saved
    _same_index(ws, reference)


def test_ingesting_the_same_partial_file_again_continues_it(stopped, big):
    root, reference, total, embedder, _, saved = stopped
    ws = Workspace(root, embedder=embedder)
    upload = ws.save_upload("docs", "big.txt", big.read_bytes())  # uploaded again, unchanged
    assert ws.ingest("docs", [upload]).indexed == 1
    assert embedder.texts == total - saved
    _same_index(ws, reference)


def test_a_partial_file_that_changed_or_a_reindex_starts_over(stopped):
    root, _, total, embedder, _, _ = stopped
    ws = Workspace(root, embedder=embedder)
    ws.reindex_document("docs", "big.txt")
    assert embedder.texts == total  # re-indexing embeds every chunk anew
    embedder.texts = 0
    changed = ws.save_upload("docs", "big.txt", (TEXT + " One more sentence.").encode())
    ws.ingest("docs", [changed])
    assert embedder.texts >= total
