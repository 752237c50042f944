"""Peak memory of ingesting one big text file, measured in a fresh process (run by bench_memory).

    python -m benchmarks.memory_probe SIZE_MB WORKDIR [--embedder packaged|fake]

Writes WORKDIR/big.txt (the corpus' text files, ASCII only, repeated up to SIZE_MB megabytes:
one byte per character, as in most big logs and dumps; a single emoji makes Python hold a text
at four bytes per character), ingests it into a new workspace in WORKDIR and prints one JSON
line: the peak resident memory of the whole process (VmHWM), of reading, and of the rest, the
seconds, chunks and saves. ``fake`` embeds with the hash embedder (framework memory alone);
``--limit-seconds`` cancels the ingestion after that long (the packaged model on 2 cores needs
hours for 200 MB: its peak is then that of reading, the model and the first batches).
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
    parser.add_argument("--model-only", action="store_true",
                        help="only embed 256 of the text's chunks: the model's own memory")
    parser.add_argument("--limit-seconds", type=float, default=0.0,
                        help="cancel the ingestion after this long (it keeps its saved batches)")
    args = parser.parse_args()
    from ragcore.embeddings import default_embedder
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace import ingest as ingest_module

    args.workdir.mkdir(parents=True, exist_ok=True)
    source = args.workdir / "big.txt"
    size = write_text(source, min(args.size_mb, 1) if args.model_only else args.size_mb)
    bare = high_water_mb()
    embedder = FakeEmbedder(dim=384) if args.embedder == "fake" else default_embedder()
    if args.model_only:  # the model's weights, runtime and working memory on real chunks
        from ragcore.chunking import SentenceSplitter

        chunks = SentenceSplitter().split_text(source.read_text())[:256]
        for start in range(0, len(chunks), 64):
            embedder.embed_batch(chunks[start : start + 64])
        print(json.dumps({"bare_mb": bare, "model_mb": high_water_mb() - bare,
                          "chunks": len(chunks)}))
        return
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
    limit = args.limit_seconds

    def cancel() -> bool:
        return bool(limit) and time.perf_counter() - started > limit

    report = Workspace(args.workdir / "ws", embedder=embedder).ingest("big", [source],
                                                                       cancel=cancel)
    seconds = time.perf_counter() - started
    peaks["rest"] = high_water_mb()
    print(json.dumps({
        "bytes": size, "bare_mb": bare, "baseline_mb": baseline, "read_mb": peaks.get("read", 0.0),
        "rest_mb": peaks["rest"], "peak_mb": max(baseline, *peaks.values()),
        "seconds": seconds, "chunks": sum(f.chunks or 0 for f in report.files),
        "saves": report.commits, "status": [f.status for f in report.files],
        "embedder": args.embedder, "pid": os.getpid(),
    }))


if __name__ == "__main__":
    main()
