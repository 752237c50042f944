"""Peak memory of ingesting one big text file, against the target of issues 10 and 12.

Each measurement runs in a fresh process (``memory_probe``), so one peak never hides in
another's. The packaged model embeds about 15 chunks per CPU-second on a small machine, so a
205 MB text (320k chunks) would take hours: the whole file is ingested with the hash embedder
(the framework's memory from reading to the last save), and the same file with the packaged
model for a few minutes (reading, the loaded model, the first batches; then cancelled, keeping
its batches). The peak with the model is the first's peak plus what the loaded model adds.
Target: under 1.5 GB for a 200 MB text. ``--quick`` uses a 10 MB text; the size can be set with
``RAGCORE_BENCH_MEMORY_MB`` and the model's time with ``RAGCORE_BENCH_MEMORY_MODEL_SECONDS``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.harness import Row

TARGET_MB = 1536.0  # for a 200 MB text: "under 1.5 GB"


def probe(size: float, embedder: str, *options: str) -> dict:
    """One fresh process ingesting a ``size`` MB text (see ``memory_probe``)."""
    with tempfile.TemporaryDirectory(prefix="ragcore-memory-") as work:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.memory_probe", str(size), work,
             "--embedder", embedder, *options],
            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1],
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(*, quick: bool = False) -> list[Row]:
    """The whole file with the hash embedder (the framework's memory to the last save), the
    packaged model alone on real chunks (its weights, runtime and working memory), and, as a
    check, the packaged model ingesting the same file for a while."""
    size = float(os.environ.get("RAGCORE_BENCH_MEMORY_MB") or (10 if quick else 205))
    limit = float(os.environ.get("RAGCORE_BENCH_MEMORY_MODEL_SECONDS") or (30 if quick else 300))
    whole = probe(size, "fake")
    model = probe(size, "packaged", "--model-only")
    check = probe(size, "packaged", "--limit-seconds", str(limit))
    mb = whole["bytes"] / 1e6
    combined = whole["peak_mb"] + model["model_mb"]
    target = f"< {TARGET_MB:.0f} MB" if size >= 200 else ""
    ok = combined < TARGET_MB if target else None

    def note(result: dict) -> str:
        return (f"{result['chunks']} chunks, {result['saves']} saves, "
                f"{result['seconds']:.0f} s, {result['status']}")

    return [
        Row("ingest_memory", f"{mb:.0f} MB text: peak RSS with the model (framework + model)",
            combined, "MB", target=target, ok=ok),
        Row("ingest_memory", "  whole file, hash embedder: peak", whole["peak_mb"], "MB",
            note=note(whole)),
        Row("ingest_memory", "    reading the file", whole["read_mb"], "MB"),
        Row("ingest_memory", "    splitting, embedding, saving", whole["rest_mb"], "MB"),
        Row("ingest_memory", "  the packaged model alone (weights, runtime, batches)",
            model["model_mb"], "MB", note=f"on {model['chunks']} real chunks"),
        Row("ingest_memory", f"  check: packaged model ingesting it, first {limit:.0f} s",
            check["peak_mb"], "MB", note=note(check)),
        Row("ingest_memory", "  peak with the model / input size", combined / mb, "x"),
    ]
