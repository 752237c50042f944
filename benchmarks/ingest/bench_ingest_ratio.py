"""Ingestion at the embedder's speed: ingest time / bare encode time, 100k chunks into 100k.

    python -m benchmarks --only ingest_ratio [--quick]     # --quick: 10k chunks into 10k

Issue 20's goal: ingesting a big corpus into an existing big index costs at most 5 % more than
encoding its chunks alone. The packaged model embeds ~15 chunks per CPU-second here, so 100k
chunks would take hours: the ingestion runs with the hash embedder, and the framework's own
cost is its CPU time (this process, every thread: the commits' merges and approximate-index
builds included) less the hash embedder's; the packaged model's CPU time per chunk is measured
on 64 of the same chunks, and the ratio is (framework + model x chunks) / (model x chunks).
The text is the corpus' ASCII text repeated (``memory_probe.write_text``), ~650 bytes a chunk;
the existing index is the same text in another file, ingested first and not timed.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from benchmarks.harness import Row
from benchmarks.ingest.memory_probe import write_text

GOAL = 1.05
BYTES_PER_CHUNK = 650  # the default splitter on the corpus' text
SAMPLE = 64  # chunks the packaged model embeds for its time per chunk


class TimedFake:
    """The hash embedder, counting the CPU seconds spent inside it."""

    def __init__(self) -> None:
        from ragcore.embeddings.fake import FakeEmbedder

        self._inner = FakeEmbedder(dim=384)
        self.dim, self.model_name = self._inner.dim, self._inner.model_name
        self.seconds, self.chunks = 0.0, 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        started = time.process_time()
        vectors = self._inner.embed_batch(texts)
        self.seconds += time.process_time() - started
        self.chunks += len(texts)
        return vectors

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


def model_seconds_per_chunk(text: str) -> float:
    """CPU seconds the packaged model spends per chunk of ``text`` (after loading)."""
    from ragcore.chunking import SentenceSplitter
    from ragcore.embeddings import default_embedder

    chunks = SentenceSplitter().split_text(text)[:SAMPLE]
    embedder = default_embedder()
    embedder.embed_batch(chunks[:2])
    started = time.process_time()
    for start in range(0, len(chunks), 32):
        embedder.embed_batch(chunks[start : start + 32])
    return (time.process_time() - started) / len(chunks)


def run(*, quick: bool = False, chunks: int = 0,
        model: Callable[[str], float] = model_seconds_per_chunk) -> list[Row]:
    """``chunks`` into as many (default 100k, 10k when ``quick``); ``model`` gives the
    model's CPU seconds per chunk of a text."""
    from ragcore.workspace import Workspace

    chunks = chunks or (10_000 if quick else 100_000)
    mb = chunks * BYTES_PER_CHUNK / 1e6
    with tempfile.TemporaryDirectory(prefix="ragcore-ingest-ratio-") as tmp:
        work = Path(tmp)
        old, new = work / "existing.txt", work / "added.txt"
        write_text(old, mb)
        write_text(new, mb)
        new.write_bytes(b"Added later.\n\n" + new.read_bytes())  # another document
        embedder = TimedFake()
        workspace = Workspace(work / "ws", embedder=embedder)
        workspace.ingest("big", [old])
        existing, embedder.seconds, embedder.chunks = embedder.chunks, 0.0, 0
        cpu, wall = time.process_time(), time.perf_counter()
        report = workspace.ingest("big", [new])
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        sample = new.read_text()[:400_000]
    framework = cpu - embedder.seconds
    per_chunk = model(sample)
    encode = per_chunk * embedder.chunks
    ratio = (framework + encode) / encode
    label = f"{embedder.chunks // 1000:,}k chunks into {existing // 1000:,}k"
    return [
        Row("ingest_ratio", f"ingest {label}, hash embedder: CPU", cpu, "s",
            note=f"{wall:.1f} s wall, {report.commits} saves, {os.cpu_count()} CPUs"),
        Row("ingest_ratio", "    framework's own CPU per chunk (less the hash embedder)",
            framework / embedder.chunks * 1000, "ms"),
        Row("ingest_ratio", "    packaged model's CPU per chunk (bare encode)", per_chunk * 1000,
            "ms", note=f"on {SAMPLE} of the chunks"),
        Row("ingest_ratio", f"ingest / bare encode time, {label}", ratio, "",
            target=f"<= {GOAL}" if not quick else "", ok=ratio <= GOAL if not quick else None,
            note=f"{ratio:.4f}: (framework + model x chunks) / (model x chunks)"),
    ]


if __name__ == "__main__":
    import sys

    from benchmarks.harness import format_table

    print(format_table(run(quick="--quick" in sys.argv)))
