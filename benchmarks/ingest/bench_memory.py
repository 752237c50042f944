"""Peak memory of ingesting one big file of each kind, against the goal of issue 20.

Each measurement runs in a fresh process (``memory_probe``), so one peak never hides in
another's. The packaged model embeds about 15 chunks per CPU-second on a small machine, so a
205 MB text (320k chunks) would take hours: each file is ingested whole with the hash embedder
(the framework's memory from reading to the last save, then the stats counting its tokens), the
packaged model is measured alone on real chunks (its weights, runtime and batches), and the
model ingesting the text for a while is a check. The inputs: a 205 MB ASCII text, the same with
an emoji ending each line (Python holds it at four bytes per character), a 50 MB CSV and a
141 MB .eml with a 100 MB attachment. Goal: every peak under 1 GB above the model (the
framework's peak, the interpreter included). A text of 32 MiB or more is read a part at a time
while it is ingested (``workspace.ingest_parts``), so it has no reading row of its own. ``--quick`` divides the sizes by 20; the text's
size can be set with ``RAGCORE_BENCH_MEMORY_MB`` and the model's time with
``RAGCORE_BENCH_MEMORY_MODEL_SECONDS``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.harness import Row

GOAL_MB = 1000.0  # "peak RSS < 1 GB above the model for any single input"
INPUTS = (("text", 205.0, "text"), ("wide", 205.0, "text, an emoji ending each line"),
          ("csv", 50.0, "CSV"), ("eml", 141.0, ".eml with one attachment"))


def probe(size: float, embedder: str, *options: str) -> dict:
    """One fresh process ingesting a ``size`` MB file (see ``memory_probe``)."""
    with tempfile.TemporaryDirectory(prefix="ragcore-memory-") as work:
        done = subprocess.run(
            [sys.executable, "-m", "benchmarks.ingest.memory_probe", str(size), work,
             "--embedder", embedder, *options],
            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[2],
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"memory probe failed: {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(*, quick: bool = False) -> list[Row]:
    """Each input whole with the hash embedder, the packaged model alone, and, as a check, the
    packaged model ingesting the text for a while."""
    scale = 0.05 if quick else 1.0
    text_mb = float(os.environ.get("RAGCORE_BENCH_MEMORY_MB") or 205 * scale)
    limit = float(os.environ.get("RAGCORE_BENCH_MEMORY_MODEL_SECONDS") or (30 if quick else 300))
    model = probe(min(text_mb, 1), "packaged", "--model-only")
    rows = [Row("ingest_memory", "the packaged model alone (weights, runtime, batches)",
                model["model_mb"], "MB", note=f"on {model['chunks']} real chunks")]
    for kind, size, what in INPUTS:
        size = text_mb if kind in ("text", "wide") else size * scale
        rows += _input_rows(probe(size, "fake", "--kind", kind), what, model["model_mb"],
                            goal=not quick)
    check = probe(text_mb, "packaged", "--limit-seconds", str(limit))
    rows.append(Row("ingest_memory", f"check: packaged model ingesting the text, first "
                    f"{limit:.0f} s (peak with the model)", check["peak_mb"], "MB",
                    note=_note(check)))
    return rows


def _input_rows(result: dict, what: str, model_mb: float, *, goal: bool) -> list[Row]:
    mb = result["bytes"] / 1e6
    peak = result["peak_mb"]
    return [
        Row("ingest_memory", f"{mb:.0f} MB {what}: peak RSS above the model", peak, "MB",
            target=f"< {GOAL_MB:.0f} MB" if goal else "", ok=peak < GOAL_MB if goal else None,
            note=_note(result)),
        Row("ingest_memory", "    reading the file", result["read_mb"], "MB",
            note="" if result["read_mb"] is not None else "a part at a time, in the next row"),
        Row("ingest_memory", "    splitting, embedding, saving", result["rest_mb"], "MB"),
        Row("ingest_memory", "    stats after the job (token counts)", result["stats_mb"], "MB",
            note=f"{result['stats_seconds']:.1f} s, {result['tokens']:,} tokens"),
        Row("ingest_memory", "    with the model (peak + model alone)", peak + model_mb, "MB"),
    ]


def _note(result: dict) -> str:
    return (f"{result['chunks']} chunks, {result['saves']} saves, "
            f"{result['seconds']:.0f} s, {result['status']}")
