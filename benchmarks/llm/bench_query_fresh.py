"""``ragcore query`` in a fresh process against a warm answer to the same question (issue 65),
ratios measured in one run.

A new workspace ingests the State of the Union speech; then for each of ``QUESTIONS``
factoids:

- **fresh**: ``ragcore query QUESTION`` as its own process (the workspace's default model, the
  packaged one here), from its start to its exit: import, the index, the model and the embedder
  loaded (the line it prints, "Loaded in ..."), the answer written and checked;
- **warm**: the same command run in one process that already answered another question, so the
  model and the embedder are loaded, as the app's are after its first answer (``cli.main``
  called again: the index is read again, as a page's rerun does not need to).

Figures: each one's whole time, the fresh process's printed load, and fresh / warm per question
(target: the median <= 1.5x).

    python -m benchmarks --only query_fresh
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.harness import REPO, Row, corpus_dir, machine_load

GROUP = "query_fresh"
QUESTIONS = (
    "How many electric vehicle charging stations will the infrastructure law build?",
    "What minimum tax rate for corporations did the President propose?",
    "At what monthly price did the President want to cap the cost of insulin?",
)
WARM_UP = "How much is Ford investing to build electric vehicles?"
TARGET = 1.5
_LOADED = re.compile(r"Loaded in ([\d.]+) s")
_WARM = r"""
import contextlib, io, json, sys, time
from ragcore.cli import main
workspace, questions = sys.argv[1], json.loads(sys.argv[2])
times = []
for question in questions:
    started = time.perf_counter()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["query", question, "--workspace", workspace])
    times.append((code, time.perf_counter() - started, out.getvalue().strip()[:60]))
print(json.dumps(times))
"""


def _python(code: str, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=1800)


def fresh_query(workspace: Path, question: str, env: dict[str, str]) -> dict[str, Any]:
    """One ``ragcore query`` process: its wall time and the load it printed."""
    import time

    started = time.perf_counter()
    done = _python("import sys; from ragcore.cli import main; sys.exit(main())", "query",
                   question, "--workspace", str(workspace), env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"ragcore query failed: {done.stderr[-600:]}")
    loaded = _LOADED.search(done.stderr)
    return {"seconds": seconds, "loaded": float(loaded.group(1)) if loaded else None,
            "answer": done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""}


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    corpus = corpus or corpus_dir()
    questions = QUESTIONS[:2] if quick else QUESTIONS
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with tempfile.TemporaryDirectory(prefix="ragcore-query-") as scratch:
        workspace = Path(scratch) / "workspace"
        ingest = _python("import sys; from ragcore.cli import main; sys.exit(main())",
                         "ingest", str(corpus / "state_of_the_union"), "--workspace",
                         str(workspace), env=env)
        if ingest.returncode != 0:
            raise RuntimeError(f"ragcore ingest failed: {ingest.stderr[-600:]}")
        before = machine_load()
        fresh = [fresh_query(workspace, q, env) for q in questions]
        warm_run = _python(_WARM, str(workspace), json.dumps([WARM_UP, *questions]), env=env)
        if warm_run.returncode != 0:
            raise RuntimeError(f"the warm process failed: {warm_run.stderr[-600:]}")
        answered = json.loads(warm_run.stdout.strip().splitlines()[-1])
        warm = [seconds for _, seconds, _ in answered]
        after = machine_load()
    load = f"{before[0]:.1f}->{after[0]:.1f}" if before and after else "n/a"
    ratios = [f["seconds"] / w for f, w in zip(fresh, warm[1:])]
    rows = []
    for question, f, w, ratio, (_, _, text) in zip(questions, fresh, warm[1:], ratios,
                                                   answered[1:]):
        rows.append(Row(GROUP, f"fresh / warm: {question[:48]}", ratio, "x",
                        note=f"fresh {f['seconds']:.1f} s (printed load {f['loaded']} s), warm "
                             f"{w:.1f} s; answers {f['answer'][:40]!r}, {text[:40]!r}"))
    median = statistics.median(ratios)
    loads = [f["loaded"] for f in fresh if f["loaded"] is not None]
    rows.append(Row(GROUP, "fresh / warm, median", median, "x", f"<= {TARGET:g}",
                    median <= TARGET,
                    note=f"load {load} (1 min, start->end); fresh p50 "
                         f"{statistics.median(f['seconds'] for f in fresh):.1f} s, of which "
                         f"loading {statistics.median(loads) if loads else 'n/a'} s; warm p50 "
                         f"{statistics.median(warm[1:]):.1f} s (its first answer, uncounted, "
                         f"{warm[0]:.1f} s)"))
    return rows
