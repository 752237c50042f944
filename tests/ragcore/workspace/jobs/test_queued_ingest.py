"""Queued ingestion on a real Postgres: two worker processes, one SIGKILLed mid-batch, build
the same index a single-machine ingest builds; a workspace that never saw the files lists and
queries it; `ragcore ingest --queue`, `ragcore worker` and `ragcore jobs` drive it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from support.team_backends import drop_database, fresh_database

from benchmarks.ingest.bench_workers import SECONDS_ENV, start_workers
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.jobs.queued_ingest import job_progress, queue_ingest, wait_for

REPO = Path(__file__).resolve().parents[4]


@pytest.fixture()
def database(postgres_url, monkeypatch):
    url = fresh_database(postgres_url)
    monkeypatch.setenv("RAGCORE_DATABASE_URL", url)
    yield url
    drop_database(url)


@pytest.fixture(scope="module")
def files(corpus_dir):
    return sorted((corpus_dir / "python_peps").glob("pep-00*.rst"))[:8]


def _index_content(index):
    ids = sorted(index.node_ids())
    return ids, [index.get_node(i).text for i in ids], index.get_vectors(ids)


def test_killed_worker_loses_nothing_and_doubles_nothing(database, files, tmp_path):
    here = Workspace(tmp_path / "server_a", embedder=FakeEmbedder())
    here.create_index("shared", store="database")
    # Both workers are up and waiting before the work is queued: a slow start (a loaded
    # machine) cannot leave all the batches to the first one.
    workers = start_workers(2, database, seconds=0.3, lease=2.0, until_empty=False)
    try:
        deadline = time.monotonic() + 120
        while not all((Path(w.root) / "ready").exists() for w in workers):
            assert time.monotonic() < deadline and all(w.poll() is None for w in workers)
            time.sleep(0.1)
        job = queue_ingest(here, "shared", files, files_per_batch=2)
        assert job.batches == 4
        while job_progress(here, job.job)[0]["running"] < 2:  # both hold a batch
            assert time.monotonic() < deadline, "the workers never took two batches"
            time.sleep(0.05)
        time.sleep(0.2)
        os.kill(workers[0].pid, signal.SIGKILL)  # mid-batch: its embeddings are not committed
        progress = wait_for(here, job.job, timeout=120)
    finally:
        for worker in workers:
            worker.kill()
            worker.wait(timeout=60)
    assert (progress["done"], progress["failed"]) == (4, 0)

    # The same files ingested on one machine, as uploads (the ids queued files get).
    alone = Workspace(tmp_path / "single", embedder=FakeEmbedder())
    os.environ.pop("RAGCORE_DATABASE_URL")
    try:
        uploads = [alone.save_upload("solo", f.name, f.read_bytes()) for f in files]
        alone.ingest("solo", uploads)
        reference = _index_content(alone.load_index("solo"))
    finally:
        os.environ["RAGCORE_DATABASE_URL"] = database
    elsewhere = Workspace(tmp_path / "server_b", embedder=FakeEmbedder())  # never saw them
    assert elsewhere.index_names() == ["shared"]
    shared = elsewhere.load_index("shared")
    ids, texts, vectors = _index_content(shared)
    assert ids == reference[0] and texts == reference[1]
    assert np.allclose(vectors, reference[2], atol=1e-6)
    tasks = [h["task"] for h in shared.history()]
    assert sorted(tasks) == sorted(f"{job.job}/{n}" for n in range(4))  # each committed once
    info = elsewhere.index_info("shared")
    assert (info.files, info.nodes, info.store) == (len(files), len(ids), "database")
    answer = shared.as_retriever(similarity_top_k=3).retrieve("Who approves a PEP?")
    assert answer and all(h.node.ref_doc_id.startswith("upload:pep-") for h in answer)


def test_the_command_line_queues_works_and_reports(database, files, tmp_path):
    env = {**os.environ, "RAGCORE_DATABASE_URL": database, "RAGCORE_EMBEDDER": "fake",
           "PYTHONPATH": str(REPO), SECONDS_ENV: "0"}

    def ragcore(root: str, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", "import sys; from ragcore.cli import main; "
                               "sys.exit(main())", "--workspace", str(tmp_path / root), *args],
                              env=env, capture_output=True, text=True, timeout=120, cwd=REPO)

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 not really")  # read by a worker, reported where it was queued
    queued = ragcore("a", "ingest", *map(str, files[:2]), str(broken), "--index", "team docs",
                     "--queue", "--files-per-batch", "1")
    assert queued.returncode == 0, queued.stderr
    assert "3 batches" in queued.stdout
    listed = ragcore("b", "jobs")
    assert "0/3" in listed.stdout and "team" in listed.stdout, listed.stdout + listed.stderr
    worked = ragcore("c", "worker", "--until-empty", "--lease", "2")
    assert worked.returncode == 0 and "3 batches ingested" in worked.stdout, worked.stderr
    listed = ragcore("b", "jobs").stdout
    assert "3/3" in listed and "broken.pdf could not be read: " in listed, listed
    indexes = ragcore("b", "indexes")
    assert "team" in indexes.stdout, indexes.stdout
    found = ragcore("b", "retrieve", "PEP purpose", "--index", "team docs")
    assert found.returncode == 0 and "pep-000" in found.stdout, found.stdout + found.stderr


def test_a_folder_index_cannot_be_queued_and_no_database_says_so(database, files, tmp_path):
    from ragcore.errors import WorkspaceError

    workspace = Workspace(tmp_path / "w", embedder=FakeEmbedder())
    workspace.create_index("local")
    with pytest.raises(WorkspaceError, match="workspace folder"):
        queue_ingest(workspace, "local", files[:1])
    os.environ.pop("RAGCORE_DATABASE_URL")
    try:
        with pytest.raises(WorkspaceError, match="RAGCORE_DATABASE_URL"):
            queue_ingest(Workspace(tmp_path / "x", embedder=FakeEmbedder()), "n", files[:1])
    finally:
        os.environ["RAGCORE_DATABASE_URL"] = database


def test_queueing_and_polling_close_the_connections_they_open(database, files, tmp_path):
    # The app's sidebar polls job_progress every few seconds: each poll's queue connection is
    # closed when the poll ends, not left for the garbage collector (psycopg warns when it is).
    import gc
    import warnings

    workspace = Workspace(tmp_path / "w", embedder=FakeEmbedder())
    workspace.create_index("polled", store="database")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        job = queue_ingest(workspace, "polled", files[:2], files_per_batch=1)
        for _ in range(3):
            assert job_progress(workspace, job.job)[0]["queued"] == 2
        gc.collect()
    left_open = [w for w in caught if issubclass(w.category, ResourceWarning)
                 and "still open" in str(w.message)]
    assert left_open == []
