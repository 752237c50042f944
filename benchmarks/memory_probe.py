"""Peak memory of ingesting one big text file, measured in a fresh process (run by bench_memory).

    python -m benchmarks.memory_probe SIZE_MB WORKDIR [--embedder packaged|fake]

Writes WORKDIR/big.txt (the corpus' text files, ASCII only, repeated up to SIZE_MB megabytes:
one byte per character, as in most big logs and dumps; a single emoji makes Python hold a text
at four bytes per character), ingests it into a new workspace in WORKDIR and prints one JSON
line: the peak resident memory of the whole process (VmHWM), of reading, and of the rest, the
seconds, chunks and saves. ``fake`` embeds with the hash embedder (framework memory alone).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from benchmarks.harness import corpus_dir


def high_water_mb() -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status (Linux only)")


def reset_high_water() -> None:
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")


def write_text(path: Path, size_mb: float) -> int:
    files = sorted(p for p in corpus_dir().rglob("*") if p.suffix in (".txt", ".md", ".rst"))
    text = "\n\n".join(p.read_text(errors="replace") for p in files).encode("ascii", "ignore")
    size = int(size_mb * 1_000_000)
    with open(path, "wb") as out:
        written = 0
        while written < size:
            piece = text[: size - written]
            out.write(piece)
            written += len(piece)
    return size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size_mb", type=float)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--embedder", choices=("packaged", "fake"), default="packaged")
    args = parser.parse_args()
    from ragcore.embeddings import default_embedder
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace import ingest as ingest_module

    args.workdir.mkdir(parents=True, exist_ok=True)
    source = args.workdir / "big.txt"
    size = write_text(source, args.size_mb)
    embedder = FakeEmbedder(dim=384) if args.embedder == "fake" else default_embedder()
    embedder.embed_batch(["warm up the model before measuring"])
    baseline = high_water_mb()
    peaks: dict[str, float] = {}
    read = ingest_module._read

    def measured_read(*call):  # the reading step's own peak, then the rest's
        reset_high_water()
        documents = read(*call)
        peaks["read"] = high_water_mb()
        reset_high_water()
        return documents

    ingest_module._read = measured_read
    started = time.perf_counter()
    report = Workspace(args.workdir / "ws", embedder=embedder).ingest("big", [source])
    seconds = time.perf_counter() - started
    peaks["rest"] = high_water_mb()
    print(json.dumps({
        "bytes": size, "baseline_mb": baseline, "read_mb": peaks.get("read", 0.0),
        "rest_mb": peaks["rest"], "peak_mb": max(baseline, *peaks.values()),
        "seconds": seconds, "chunks": sum(f.chunks or 0 for f in report.files),
        "saves": report.commits, "status": [f.status for f in report.files],
        "embedder": args.embedder, "pid": os.getpid(),
    }))


if __name__ == "__main__":
    main()
