"""Queued ingestion with 1, 2 and 4 ``ragcore worker`` processes against one Postgres.

The embedder is throttled to a fixed time per batch of texts (``SlowEmbedder``: the hashing
embedder's vectors after ``--seconds-per-batch``), so the figure is how well the queue, the
per-batch commits and the database let workers run side by side, not how many cores this
machine has: a small machine shows the scaling a larger one gets from real embedders. Each run
queues the same files into a new index, starts N worker processes, and times until the job's
last batch is committed. Target: >= 3.5x the one-worker throughput at 4 workers.

    python -m benchmarks.ingest.bench_workers [--files 32] [--seconds-per-batch 0.5]
    python -m benchmarks.ingest.bench_workers --worker ROOT   # one worker (what the runs start)
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


def worker_main(root: str, lease: float, *, until_empty: bool = True) -> int:
    """One worker: the workspace at ``root`` (its own folder), the database of
    ``$RAGCORE_DATABASE_URL``, the slow embedder; until no batch is left (or killed). It
    writes ``<root>/ready`` once its imports are done and it is about to take work."""
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.queued_ingest import work

    seconds = float(os.environ.get(SECONDS_ENV, "0"))
    workspace = Workspace(root, embedder=SlowEmbedder(seconds))
    (Path(root) / "ready").write_text("ready")
    return 0 if work(workspace, until_empty=until_empty, lease_seconds=lease) >= 0 else 1


def start_workers(count: int, url: str, *, seconds: float, lease: float = 5.0,
                  until_empty: bool = True) -> list[Any]:
    """``count`` worker processes, each with a workspace folder of its own (``.root``)."""
    env = {**os.environ, "RAGCORE_DATABASE_URL": url, SECONDS_ENV: str(seconds),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    processes = []
    for _ in range(count):
        root = tempfile.mkdtemp(prefix="ragcore-worker-")
        command = [sys.executable, "-m", "benchmarks.ingest.bench_workers", "--worker", root,
                   "--lease", str(lease)] + ([] if until_empty else ["--wait-for-more"])
        process = subprocess.Popen(command, env=env, cwd=Path(__file__).resolve().parents[2])
        process.root = root  # type: ignore[attr-defined]
        processes.append(process)
    return processes


def timed_run(workers: int, url: str, files: list[Path], *, seconds: float) -> float:
    """Seconds from queueing ``files`` to the last batch committed, with ``workers``."""
    from ragcore.workspace import Workspace
    from ragcore.workspace.jobs.queued_ingest import queue_ingest, wait_for

    os.environ["RAGCORE_DATABASE_URL"] = url
    workspace = Workspace(tempfile.mkdtemp(prefix="ragcore-bench-"), embedder=FakeEmbedder())
    name = f"workers{workers}_{int(time.time() * 1000) % 10**6}"
    # Workers start first and wait for work: the timing is the queue's, not Python's start-up.
    processes = start_workers(workers, url, seconds=seconds, until_empty=False)
    try:
        while not all((Path(p.root) / "ready").exists() for p in processes):
            time.sleep(0.1)
        time.sleep(1.0)  # their first poll of the empty queue
        started = time.perf_counter()
        job = queue_ingest(workspace, name, files, files_per_batch=1)
        progress = wait_for(workspace, job.job, timeout=900)
        elapsed = time.perf_counter() - started
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=60)
    if progress["done"] != job.batches:
        raise RuntimeError(f"{workers} worker(s): {progress}")
    return elapsed


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


def corpus_files(count: int, *, characters: int = 4000) -> list[Path]:
    """``count`` text files of ``characters`` each, cut from a Gutenberg book: equal files make
    equal tasks (each one slice of chunks, one call of the embedder), so the timing shows the
    queue's scaling, not which worker drew the longest file last."""
    from benchmarks.harness import corpus_dir

    book = sorted((corpus_dir() / "gutenberg_books").glob("*.txt"))[0]
    text = book.read_text(encoding="utf-8", errors="replace")
    folder = Path(tempfile.mkdtemp(prefix="ragcore-bench-files-"))
    files = []
    for number in range(count):
        start = (number * characters) % max(1, len(text) - characters)
        path = folder / f"part{number:03d}.txt"
        path.write_text(text[start:start + characters], encoding="utf-8")
        files.append(path)
    return files


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
    parser.add_argument("--wait-for-more", action="store_true", help="(worker) do not stop "
                        "when the queue is empty")
    parser.add_argument("--files", type=int, default=32)
    parser.add_argument("--seconds-per-batch", type=float, default=0.5)
    args = parser.parse_args(argv)
    if args.worker:
        return worker_main(args.worker, args.lease, until_empty=not args.wait_for_more)
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
