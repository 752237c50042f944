"""Queued ingestion with 1, 2 and 4 ``ragcore worker`` processes against one Postgres.

The embedder is throttled to a fixed time per batch of texts (``SlowEmbedder``: the hashing
embedder's vectors after ``--seconds-per-batch``), so the figure is how well the queue, the
per-batch commits and the database let workers run side by side, not how many cores this
machine has: a small machine shows the scaling a larger one gets from real embedders. Each run
queues the same files into a new index, starts N worker processes, and times until the job's
last batch is committed. Target: >= 3.5x the one-worker throughput at 4 workers.

    python -m benchmarks.bench_workers [--files 32] [--seconds-per-batch 0.5]
    python -m benchmarks.bench_workers --worker ROOT   # one worker (what the runs start)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ragcore.embeddings.fake import FakeEmbedder

SECONDS_ENV = "RAGCORE_BENCH_SECONDS_PER_BATCH"


class SlowEmbedder(FakeEmbedder):
    """The hashing embedder (same model name, same vectors), ``seconds`` per batch of texts."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.seconds)
        return super().embed_batch(texts)


def worker_main(root: str, lease: float) -> int:
    """One worker: the workspace at ``root`` (its own folder), the database of
    ``$RAGCORE_DATABASE_URL``, the slow embedder; until no batch is left."""
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.queued_ingest import work

    seconds = float(os.environ.get(SECONDS_ENV, "0"))
    workspace = Workspace(root, embedder=SlowEmbedder(seconds))
    return 0 if work(workspace, until_empty=True, lease_seconds=lease) >= 0 else 1


def start_workers(count: int, url: str, *, seconds: float, lease: float = 5.0) -> list[Any]:
    """``count`` worker processes, each with a workspace folder of its own."""
    env = {**os.environ, "RAGCORE_DATABASE_URL": url, SECONDS_ENV: str(seconds),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    return [subprocess.Popen([sys.executable, "-m", "benchmarks.bench_workers", "--worker",
                              tempfile.mkdtemp(prefix="ragcore-worker-"), "--lease", str(lease)],
                             env=env, cwd=Path(__file__).resolve().parent.parent)
            for _ in range(count)]


def timed_run(workers: int, url: str, files: list[Path], *, seconds: float) -> float:
    """Seconds from queueing ``files`` to the last batch committed, with ``workers``."""
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.queued_ingest import queue_ingest, wait_for

    os.environ["RAGCORE_DATABASE_URL"] = url
    workspace = Workspace(tempfile.mkdtemp(prefix="ragcore-bench-"), embedder=FakeEmbedder())
    name = f"workers{workers}_{int(time.time() * 1000) % 10**6}"
    job = queue_ingest(workspace, name, files, files_per_batch=1)
    started = time.perf_counter()
    processes = start_workers(workers, url, seconds=seconds)
    try:
        progress = wait_for(workspace, job.job, timeout=900)
    finally:
        for process in processes:
            process.wait(timeout=60)
    if progress["done"] != job.batches:
        raise RuntimeError(f"{workers} worker(s): {progress}")
    return time.perf_counter() - started


def measure(url: str, files: list[Path], *, seconds: float,
            counts: Sequence[int] = (1, 2, 4)) -> list[dict[str, float]]:
    rows = []
    for count in counts:
        elapsed = timed_run(count, url, files, seconds=seconds)
        rows.append({"workers": count, "seconds": elapsed, "files_per_s": len(files) / elapsed})
    base = rows[0]["files_per_s"]
    for row in rows:
        row["speedup"] = row["files_per_s"] / base
    return rows


def corpus_files(count: int) -> list[Path]:
    from benchmarks.harness import corpus_dir

    return sorted((corpus_dir() / "python_peps").glob("pep-*.rst"))[:count]


def run(quick: bool = False) -> list[Any]:
    """The workers rows for ``python -m benchmarks --only workers``."""
    from benchmarks.harness import Row
    from ragcore.testing.engines import PG_PASSWORD, postgres_server

    os.environ.setdefault("RAGCORE_PG_PASSWORD", PG_PASSWORD)
    files = corpus_files(12 if quick else 32)
    with postgres_server() as url:
        rows = measure(url, files, seconds=0.25 if quick else 0.5)
    return [Row("workers", f"ingest throughput, {r['workers']} worker(s), x of 1 worker",
                r["speedup"], "x", ">= 3.5x" if r["workers"] == 4 else "",
                r["speedup"] >= 3.5 if r["workers"] == 4 else None) for r in rows]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", metavar="ROOT", help="run one worker (internal)")
    parser.add_argument("--lease", type=float, default=5.0)
    parser.add_argument("--files", type=int, default=32)
    parser.add_argument("--seconds-per-batch", type=float, default=0.5)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker, args.lease)
    from ragcore.testing.engines import PG_PASSWORD, postgres_server

    os.environ.setdefault("RAGCORE_PG_PASSWORD", PG_PASSWORD)
    with postgres_server() as url:
        rows = measure(url, corpus_files(args.files), seconds=args.seconds_per_batch)
    print(f"{'workers':>8} {'seconds':>8} {'files/s':>8} {'speedup':>8}")
    for r in rows:
        print(f"{r['workers']:>8} {r['seconds']:>8.1f} {r['files_per_s']:>8.2f} "
              f"{r['speedup']:>7.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
