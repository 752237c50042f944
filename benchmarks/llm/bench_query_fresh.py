"""``ragcore query`` in a fresh process against a warm answer to the same question (issue 65),
ratios measured in one run.

A new workspace ingests the State of the Union speech; then for each of ``QUESTIONS``
factoids:

- **fresh**: ``ragcore query QUESTION`` as its own process (the workspace's default model, the
  packaged one here), from its start to its exit: import, the index, the model and the embedder
  loaded (the line it prints, "Loaded in ..."), the answer written and checked;
- **warm**: the same command run in one process that already answered another question, so the
  model and the embedder are loaded, as the app's are after its first answer (``cli.main``
  called again: the index is read again, as a page's rerun does not need to);
- **served**: ``ragcore query QUESTION`` as its own process again, with a ``ragcore serve`` of the
  workspace running (started after the warm arm, its first answer uncounted): the query's
  process imports, sends the question over the socket and writes the answer it streams back.

Figures: each one's whole time, the fresh process's printed load, fresh / warm and served / warm
per question (target: the median <= 1.5x), and the machine's load (``uptime``) at each arm.

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
import time
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
    """One ``ragcore query`` process: its wall time, the load it printed, who answered."""
    started = time.perf_counter()
    done = _python("import sys; from ragcore.cli import main; sys.exit(main())", "query",
                   question, "--workspace", str(workspace), env=env)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"ragcore query failed: {done.stderr[-600:]}")
    loaded = _LOADED.search(done.stderr)
    return {"seconds": seconds, "loaded": float(loaded.group(1)) if loaded else None,
            "served": "Answered by the warm process" in done.stderr,
            "answer": done.stdout.strip().splitlines()[0] if done.stdout.strip() else ""}


def uptime() -> str:
    """``uptime``'s line, kept beside the figures (the machine is shared)."""
    done = subprocess.run(["uptime"], capture_output=True, text=True, check=False)
    return done.stdout.strip() or "uptime n/a"


def served_queries(workspace: Path, questions: list[str], env: dict[str, str]
                   ) -> tuple[list[dict[str, Any]], float]:
    """Each question asked by a ``ragcore query`` process while ``ragcore serve`` runs (its first
    answer, to ``WARM_UP``, uncounted); returns them and the seconds the warm process loaded."""
    command = [sys.executable, "-c", "import sys; from ragcore.cli import main; "
               "sys.exit(main())", "serve", "--workspace", str(workspace)]
    started = time.perf_counter()
    server = subprocess.Popen(command, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True)
    try:
        said = ""
        for line in server.stderr:  # the warm process says "Warm: ..." once it is loaded
            said += line
            if line.startswith("Warm:"):
                break
        else:
            raise RuntimeError(f"ragcore serve did not start: {said[-600:]}")
        loading = time.perf_counter() - started
        asked = [fresh_query(workspace, q, env) for q in [WARM_UP, *questions]]
        if not all(a["served"] for a in asked):
            raise RuntimeError("a query was not answered by the warm process")
        return asked[1:], loading
    finally:
        _python("import sys; from ragcore.cli import main; sys.exit(main())", "serve",
                "--stop", "--workspace", str(workspace), env=env)
        server.wait(timeout=120)


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
        before, seen = machine_load(), [uptime()]
        fresh = [fresh_query(workspace, q, env) for q in questions]
        seen.append(uptime())
        warm_run = _python(_WARM, str(workspace), json.dumps([WARM_UP, *questions]), env=env)
        if warm_run.returncode != 0:
            raise RuntimeError(f"the warm process failed: {warm_run.stderr[-600:]}")
        answered = json.loads(warm_run.stdout.strip().splitlines()[-1])
        warm = [seconds for _, seconds, _ in answered]
        seen.append(uptime())
        served, serve_load = served_queries(workspace, list(questions), env)
        seen.append(uptime())
        after = machine_load()
    load = f"{before[0]:.1f}->{after[0]:.1f}" if before and after else "n/a"
    ratios = [f["seconds"] / w for f, w in zip(fresh, warm[1:])]
    served_ratios = [s["seconds"] / w for s, w in zip(served, warm[1:])]
    rows = []
    for question, f, w, s, (_, _, text) in zip(questions, fresh, warm[1:], served,
                                               answered[1:]):
        rows.append(Row(GROUP, f"fresh / warm: {question[:48]}", f["seconds"] / w, "x",
                        note=f"fresh {f['seconds']:.1f} s (printed load {f['loaded']} s), warm "
                             f"{w:.1f} s; answers {f['answer'][:40]!r}, {text[:40]!r}"))
        rows.append(Row(GROUP, f"served / warm: {question[:48]}", s["seconds"] / w, "x",
                        note=f"served {s['seconds']:.1f} s, warm {w:.1f} s; answer "
                             f"{s['answer'][:40]!r}"))
    median = statistics.median(ratios)
    loads = [f["loaded"] for f in fresh if f["loaded"] is not None]
    rows.append(Row(GROUP, "fresh / warm, median", median, "x", f"<= {TARGET:g}",
                    median <= TARGET,
                    note=f"load {load} (1 min, start->end); fresh p50 "
                         f"{statistics.median(f['seconds'] for f in fresh):.1f} s, of which "
                         f"loading {statistics.median(loads) if loads else 'n/a'} s; warm p50 "
                         f"{statistics.median(warm[1:]):.1f} s (its first answer, uncounted, "
                         f"{warm[0]:.1f} s)"))
    served_median = statistics.median(served_ratios)
    rows.append(Row(GROUP, "served / warm, median", served_median, "x", f"<= {TARGET:g}",
                    served_median <= TARGET,
                    note=f"served p50 {statistics.median(s['seconds'] for s in served):.1f} s; "
                         f"`ragcore serve` loaded in {serve_load:.1f} s, once; uptime before "
                         f"fresh / warm / served / after: " + " | ".join(
                             u.split("load average:")[-1].strip() for u in seen)))
    return rows
