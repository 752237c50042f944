"""What one batch commit costs as the index grows: bytes written and seconds per 2k-chunk commit.

An index grows (documents of 100 chunks with random 384-d vectors, no embedder: the cost
measured is the commit's alone) and is persisted to one folder; at each size in ``SIZES`` one
more batch of ``BATCH`` chunks is upserted and persisted, timed. Bytes written are the sizes of
the files that commit created (files hard-linked from the previous generation are not written
again), so a format that rewrites the whole index shows its size here, and an append-only one
the batch's. Run: ``python -m benchmarks.index.bench_commit [max_chunks]`` (default 200,000;
up to 1M), or ``python -m benchmarks.index.bench_commit steady [max_chunks]`` to commit 2k chunks
at a time all the way (merges included), reported per window of 10 commits, or
``python -m benchmarks.index.bench_commit ratio [max_chunks]`` for the time of a commit at each size
against one into a 2k-chunk index (``interleaved_commits``: the goal is at most ``GOAL``, a
commit's work following its batch; ``bench_scale`` reports it too). ``BENCH_DOC_CHUNKS`` sets
the chunks per document (default 100; 1 makes every chunk a document, the most records).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks.harness import Row, timed_cpu
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document, Node

DIM = 384
BATCH = 2_000
DOC_CHUNKS = int(os.environ.get("BENCH_DOC_CHUNKS", "100"))
SIZES = (2_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
GOAL = 1.3  # a commit at any size / a commit into a 2k-chunk index
RATIO_SIZES = (10_000, 100_000, 1_000_000)
REPEATS = 7  # commits of each kind per ratio, taken in turns
TEXT = "A chunk of a document about subject {n}, long enough to look like a real one. " * 6


def batch(first_doc: int, chunks: int, rng: np.random.Generator):
    """(documents, nodes, vectors) of ``chunks`` chunks, ``DOC_CHUNKS`` per document."""
    docs, nodes = [], []
    for d in range(first_doc, first_doc + chunks // DOC_CHUNKS):
        doc_id = f"doc-{d:07d}.txt"
        docs.append(Document(text=TEXT, doc_id=doc_id, metadata={"file_name": doc_id}))
        for c in range(DOC_CHUNKS):
            nodes.append(Node(text=TEXT.format(n=c), node_id=f"{doc_id}#{c}", ref_doc_id=doc_id,
                              metadata={"file_name": doc_id}))
    vectors = rng.standard_normal((len(nodes), DIM), dtype=np.float32)
    return docs, nodes, vectors


def new_bytes(path: Path, before: set[int]) -> int:
    """Bytes of the files under ``path`` whose inodes were not there before."""
    return sum(size for inode, size in files(path) if inode not in before)


def inodes(path: Path) -> set[int]:
    return {inode for inode, _ in files(path)}


def files(path: Path) -> list[tuple[int, int]]:
    """(inode, size) of every file under ``path``; a background merge may remove an older
    generation while this walks, so what vanishes on the way is skipped."""
    found = []
    for root, _, names in os.walk(path):
        for name in names:
            try:
                stat = os.stat(os.path.join(root, name))
            except FileNotFoundError:
                continue
            found.append((stat.st_ino, stat.st_size))
    return found


def measure(max_chunks: int) -> list[tuple[int, int, float]]:
    """(chunks before the commit, bytes written, seconds) per size up to ``max_chunks``."""
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index"
        index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
        docs_made = 0
        for size in [s for s in SIZES if s <= max_chunks]:
            grow = size - len(index)
            if grow > 0:
                index.upsert_documents(*batch(docs_made, grow, rng))
                docs_made += grow // DOC_CHUNKS
            index.persist(path)
            before = inodes(path)
            documents, nodes, vectors = batch(docs_made, BATCH, rng)
            docs_made += BATCH // DOC_CHUNKS
            start = time.perf_counter()
            index.upsert_documents(documents, nodes, vectors)
            index.persist(path)
            rows.append((size, new_bytes(path, before), time.perf_counter() - start))
    return rows


def steady(max_chunks: int, window: int = 10) -> list[tuple[int, float, float, float, float]]:
    """Commit ``BATCH`` chunks at a time up to ``max_chunks`` (merges included); per window of
    commits: (chunks at its end, median MB, max MB, median s, max s)."""
    rng = np.random.default_rng(0)
    rows, written, seconds = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index"
        index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
        for commit in range(max_chunks // BATCH):
            before = inodes(path) if path.exists() else set()
            documents, nodes, vectors = batch(commit * BATCH // DOC_CHUNKS, BATCH, rng)
            start = time.perf_counter()
            index.upsert_documents(documents, nodes, vectors)
            index.persist(path)
            seconds.append(time.perf_counter() - start)
            written.append(new_bytes(path, before) / 1e6)
            if len(written) == window:
                rows.append((len(index), float(np.median(written)), max(written),
                             float(np.median(seconds)), max(seconds)))
                written, seconds = [], []
    return rows


def interleaved_commits(index: VectorStoreIndex, path: Path,
                        make_batch: Callable[[int, int], Any], *, repeats: int = REPEATS
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The (wall s, CPU s) of ``repeats`` commits of a ``BATCH``-chunk batch each into
    ``index`` (persisted at ``path``) and into a fresh ``BATCH``-chunk index, a row per commit:
    taken in turns, so both meet the same load on a shared machine. ``make_batch(first,
    count)`` gives (documents, nodes, vectors) for chunks numbered from ``first``."""
    times: dict[str, list[tuple[float, float]]] = {"big": [], "small": []}
    with tempfile.TemporaryDirectory(prefix="ragcore-commit-") as tmp:
        small = VectorStoreIndex(embedder=FakeEmbedder(dim=index.store.dim))
        small_path = Path(tmp) / "index"
        small.upsert_documents(*make_batch(0, BATCH))
        small.persist(small_path)
        for _ in range(repeats):
            for kind, target, where in (("small", small, small_path), ("big", index, path)):
                target.upsert_documents(*make_batch(len(target), BATCH))
                wall, cpu, _ = timed_cpu(lambda: target.persist(where))
                times[kind].append((wall, cpu))
    return np.array(times["big"]), np.array(times["small"])


def ratio_rows(index: VectorStoreIndex, path: Path, label: str,
               make_batch: Callable[[int, int], Any], *, repeats: int = REPEATS) -> list[Row]:
    """The commit of a batch at ``label`` against one into a 2k-chunk index, as a row."""
    big, small = interleaved_commits(index, path, make_batch, repeats=repeats)
    wall, cpu = np.median(big, axis=0) / np.median(small, axis=0)
    return [Row("scale", f"commit 2k batch at {label} / into a 2k index", float(wall), "x",
                f"<= {GOAL}", bool(wall <= GOAL),
                note=f"medians of {repeats} taken in turns: {np.median(big[:, 0]):.3f} s / "
                     f"{np.median(small[:, 0]):.3f} s; CPU {cpu:.2f}x")]


def ratios(max_chunks: int, repeats: int = REPEATS) -> list[tuple[int, float, float, float]]:
    """(chunks, median s into it, median s into 2k, ratio) per size from 10k to ``max_chunks``."""
    rng = np.random.default_rng(0)

    def make_batch(first: int, count: int):  # chunk numbers -> documents numbered alike
        return batch(first // DOC_CHUNKS, count, rng)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "index"
        index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
        for size in [s for s in RATIO_SIZES if s <= max_chunks]:
            index.upsert_documents(*make_batch(len(index), size - len(index)))
            index.persist(path)
            big, small = interleaved_commits(index, path, make_batch, repeats=repeats)
            seconds, base = float(np.median(big[:, 0])), float(np.median(small[:, 0]))
            rows.append((size, seconds, base, seconds / base))
    return rows


def main(argv: list[str]) -> None:
    if argv and argv[0] == "steady":
        max_chunks = int(argv[1]) if len(argv) > 1 else 100_000
        print(f"{'chunks':>8} {'MB p50':>7} {'MB max':>7} {'s p50':>6} {'s max':>6}"
              f"   (per {BATCH}-chunk commit, over windows of 10 commits)")
        for size, mb, mb_max, sec, sec_max in steady(max_chunks):
            print(f"{size:>8} {mb:>7.1f} {mb_max:>7.1f} {sec:>6.2f} {sec_max:>6.2f}", flush=True)
        return
    if argv and argv[0] == "ratio":
        max_chunks = int(argv[1]) if len(argv) > 1 else 100_000
        print(f"{'chunks':>8} {'s':>6} {'s at 2k':>8} {'ratio':>6}   (medians of {REPEATS} "
              f"{BATCH}-chunk commits, {DOC_CHUNKS} chunk(s) per document; goal <= {GOAL})")
        for size, seconds, base, ratio in ratios(max_chunks):
            print(f"{size:>8} {seconds:>6.3f} {base:>8.3f} {ratio:>6.2f}", flush=True)
        return
    max_chunks = int(argv[0]) if argv else 200_000
    print(f"{'chunks':>8} {'MB written':>11} {'seconds':>8}   (one {BATCH}-chunk commit)")
    for size, written, seconds in measure(max_chunks):
        print(f"{size:>8} {written / 1e6:>11.1f} {seconds:>8.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
