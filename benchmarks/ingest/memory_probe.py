"""Peak memory of ingesting one big file, measured in a fresh process (run by bench_memory).

    python -m benchmarks.ingest.memory_probe SIZE_MB WORKDIR [--embedder packaged|fake]
        [--kind text|wide|csv|eml]

Writes WORKDIR/big.<ext> of SIZE_MB megabytes (``inputs``): ``text`` the corpus' text files,
ASCII only, repeated (one byte per character, as in most big logs and dumps); ``wide`` the same
with an emoji ending every line (Python then holds the text at four bytes per character);
``csv`` a table of rows; ``eml`` a short message with one attachment filling the size. It
ingests it into a new workspace in WORKDIR, then asks the index's stats (which count its tokens),
and prints one JSON line: the peak resident memory of the whole process (VmHWM), of reading, of
the rest of the ingestion, and of the stats, the seconds, chunks and saves. A big plain text
is read a part at a time inside the rest (``workspace.ingest_parts``): its ``read_mb`` is null. ``fake`` embeds with
the hash embedder (framework memory alone);
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


def corpus_text() -> bytes:
    files = sorted(p for p in corpus_dir().rglob("*") if p.suffix in (".txt", ".md", ".rst"))
    return "\n\n".join(p.read_text(errors="replace") for p in files).encode("ascii", "ignore")


def write_text(path: Path, size_mb: float, *, wide: bool = False) -> int:
    """The corpus' ASCII text repeated to ``size_mb`` MB (an emoji ending each line if wide)."""
    text = corpus_text()
    if wide:
        text = text.replace(b"\n", "\U0001f989\n".encode())
    return _repeat(path, text, int(size_mb * 1_000_000))


def _repeat(path: Path, text: bytes, size: int) -> int:
    with open(path, "wb") as out:
        written = 0
        while written < size:
            piece = text[: size - written]
            out.write(piece)
            written += len(piece)
    return size


def write_csv(path: Path, size_mb: float) -> int:
    """A table: an id, a date, a city and a sentence of the corpus per row."""
    sentences = [s.strip().replace('"', "'") for s in corpus_text().decode().split(".")
                 if 20 < len(s.strip()) < 300][:5000]
    rows = "".join(f'{i},2024-{i % 12 + 1:02d}-{i % 28 + 1:02d},City {i % 97},"{s}."\n'
                   for i, s in enumerate(sentences))
    header = b"id,date,city,note\n"
    with open(path, "wb") as out:
        out.write(header)
    size = int(size_mb * 1_000_000)
    with open(path, "ab") as out:
        body = rows.encode()
        written = len(header)
        while written < size:
            piece = body[: size - written]
            piece = piece[: piece.rfind(b"\n") + 1] or piece
            out.write(piece)
            written += len(piece)
    return size


def write_eml(path: Path, size_mb: float) -> int:
    """A short message with one base64 attachment making up the rest of ``size_mb`` MB."""
    import base64

    head = ("From: Ann <ann@example.org>\nTo: bob@example.org\nSubject: The survey photos\n"
            "Date: Mon, 2 Mar 2026 10:00:00 +0000\nMIME-Version: 1.0\n"
            'Content-Type: multipart/mixed; boundary="cut"\n\n--cut\n'
            "Content-Type: text/plain; charset=utf-8\n\nThe photos of the owl survey are "
            "attached.\n--cut\nContent-Type: application/zip\n"
            'Content-Disposition: attachment; filename="photos.zip"\n'
            "Content-Transfer-Encoding: base64\n\n").encode()
    raw = int((size_mb * 1_000_000 - len(head) - 10) * 57 / 77)  # base64: 77 bytes per 57
    line = base64.encodebytes(os.urandom(57 * 1024))
    with open(path, "wb") as out:
        out.write(head)
        for _ in range(raw // (57 * 1024)):
            out.write(line)
        out.write(b"--cut--\n")
    return path.stat().st_size


INPUTS = {"text": ("big.txt", write_text), "wide": ("big.txt", write_text),
          "csv": ("big.csv", write_csv), "eml": ("big.eml", write_eml)}


def write_input(workdir: Path, kind: str, size_mb: float) -> tuple[Path, int]:
    name, write = INPUTS[kind]
    path = workdir / name
    size = write(path, size_mb, wide=True) if kind == "wide" else write(path, size_mb)
    return path, size


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("size_mb", type=float)
    parser.add_argument("workdir", type=Path)
    parser.add_argument("--embedder", choices=("packaged", "fake"), default="packaged")
    parser.add_argument("--kind", choices=tuple(INPUTS), default="text")
    parser.add_argument("--model-only", action="store_true",
                        help="only embed 256 of the text's chunks: the model's own memory")
    parser.add_argument("--limit-seconds", type=float, default=0.0,
                        help="cancel the ingestion after this long (it keeps its saved batches)")
    args = parser.parse_args()
    from ragcore.embeddings import default_embedder
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.ingest import index_files as ingest_module

    args.workdir.mkdir(parents=True, exist_ok=True)
    source, size = write_input(args.workdir, "text" if args.model_only else args.kind,
                               min(args.size_mb, 1) if args.model_only else args.size_mb)
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

    workspace = Workspace(args.workdir / "ws", embedder=embedder)
    report = workspace.ingest("big", [source], cancel=cancel)
    seconds = time.perf_counter() - started
    peaks["rest"] = high_water_mb()
    reset_high_water()  # the stats after the job count the index's tokens
    counted = time.perf_counter()
    tokens = workspace.index_info("big").tokens
    peaks["stats"] = high_water_mb()
    stats_seconds = time.perf_counter() - counted
    print(json.dumps({
        "bytes": size, "bare_mb": bare, "baseline_mb": baseline, "read_mb": peaks.get("read"),
        "rest_mb": peaks["rest"], "stats_mb": peaks["stats"],
        "peak_mb": max(baseline, *peaks.values()), "seconds": seconds,
        "stats_seconds": stats_seconds, "tokens": tokens, "kind": args.kind, "chunks": sum(f.chunks or 0 for f in report.files),
        "saves": report.commits, "status": [f.status for f in report.files],
        "embedder": args.embedder, "pid": os.getpid(),
    }))


if __name__ == "__main__":
    main()
