"""What one batch commit costs as the index grows: bytes written and seconds per 2k-chunk commit.

An index grows (documents of 100 chunks with random 384-d vectors, no embedder: the cost
measured is the commit's alone) and is persisted to one folder; at each size in ``SIZES`` one
more batch of ``BATCH`` chunks is upserted and persisted, timed. Bytes written are the sizes of
the files that commit created (files hard-linked from the previous generation are not written
again), so a format that rewrites the whole index shows its size here, and an append-only one
the batch's. Run: ``python -m benchmarks.bench_commit [max_chunks]`` (default 200,000; up to 1M), or
``python -m benchmarks.bench_commit steady [max_chunks]`` to commit 2k chunks at a time all the
way (merges included), reported per window of 10 commits. ``BENCH_DOC_CHUNKS`` sets the
chunks per document (default 100): what a commit still writes for every document is its node
count (8 bytes, ``node_counts.npy``).
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document, Node

DIM = 384
BATCH = 2_000
DOC_CHUNKS = int(os.environ.get("BENCH_DOC_CHUNKS", "100"))
SIZES = (2_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000)
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
    total = 0
    for child in path.rglob("*"):
        if child.is_file() and (stat := child.stat()).st_ino not in before:
            total += stat.st_size
    return total


def inodes(path: Path) -> set[int]:
    return {c.stat().st_ino for c in path.rglob("*") if c.is_file()}


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


def main(argv: list[str]) -> None:
    if argv and argv[0] == "steady":
        max_chunks = int(argv[1]) if len(argv) > 1 else 100_000
        print(f"{'chunks':>8} {'MB p50':>7} {'MB max':>7} {'s p50':>6} {'s max':>6}"
              f"   (per {BATCH}-chunk commit, over windows of 10 commits)")
        for size, mb, mb_max, sec, sec_max in steady(max_chunks):
            print(f"{size:>8} {mb:>7.1f} {mb_max:>7.1f} {sec:>6.2f} {sec_max:>6.2f}", flush=True)
        return
    max_chunks = int(argv[0]) if argv else 200_000
    print(f"{'chunks':>8} {'MB written':>11} {'seconds':>8}   (one {BATCH}-chunk commit)")
    for size, written, seconds in measure(max_chunks):
        print(f"{size:>8} {written / 1e6:>11.1f} {seconds:>8.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
