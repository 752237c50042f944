"""A fresh machine against this one (issue 65): the idle factoid answer where nothing was made
before, ratios measured in one run.

Each arm is a new process answering the first ``QUESTIONS`` factoid questions of the State of
the Union (``bench_wait``'s path: the default query engine with ``LocalLLM()``, each answer new
to the prompt cache, followed as the CLI follows it), every answer counted from the process's
first: a person's first question after starting ragcore is one they wait for.

- **warm**: this checkout, this user's caches (the assembled model, the embedder's ONNX export);
- **fresh**: a copy of the checkout's files but those git ignores (no ``benchmarks/.cache``,
  no ``__pycache__``) run with ``HOME`` and ``XDG_CACHE_HOME`` new empty folders, so the model is
  assembled and verified and the embedder exported again, as on a machine that never ran it;
- **fresh, 1 thread**: the same, the model held to one thread (``RAGCORE_LLM_THREADS``), as on a
  machine half as fast: the reading budget must shrink so the answer still fits.

Figures per arm: the load (the index embedded, the model loaded: what a fresh machine pays
once), the first answer, the whole answer's p50 (target: <= 8 s), the reading budget the
model's measured speed set, and the fresh arm's p50 against the warm one's.

    python -m benchmarks --only fresh [--quick]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.harness import REPO, Row, corpus_dir, machine_load
from benchmarks.llm.waits import percentile

GROUP = "fresh"
QUESTIONS = 7
TARGET_SECONDS = 8.0
_CHILD = "from benchmarks.llm.bench_fresh import answer_all; answer_all()"


def answer_all() -> None:
    """In the arm's process: load, then answer the questions, every one counted; JSON on
    stdout."""
    import time

    started = time.perf_counter()
    from benchmarks.llm.bench_local_llm import _index, _questions
    from benchmarks.llm.bench_wait import ModelClock, ask
    from ragcore.llms.local import LocalLLM

    corpus, count = Path(sys.argv[1]), int(sys.argv[2])
    index = _index(corpus)
    indexed = time.perf_counter() - started
    llm = LocalLLM()
    loaded = time.perf_counter() - started
    budget = llm.reading_budget()
    waits = []
    with ModelClock(llm) as clock:
        for question in _questions(corpus)[:count]:
            waits.append(ask(index, llm, clock, question))
    print(json.dumps({
        "index_s": indexed, "load_s": loaded, "threads": llm.threads,
        "first_budget": budget.as_dict() if budget else None,
        "budget": llm.reading_budget().as_dict(),
        "whole": [w.whole for w in waits], "first_token": [w.first_token for w in waits],
        "read": [sum(p.read_tokens for p in w.passes) for w in waits],
    }))


def run_arm(checkout: Path, corpus: Path, count: int, env: dict[str, str]) -> dict[str, Any]:
    """One arm's process, its figures and the load average around it."""
    before = machine_load()
    done = subprocess.run([sys.executable, "-c", _CHILD, str(corpus), str(count)], cwd=checkout,
                          env={**os.environ, "PYTHONPATH": str(checkout), **env},
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"the arm in {checkout} failed: {done.stderr[-600:]}")
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "load": (before, machine_load())}


def fresh_checkout(into: Path) -> Path:
    """The checkout's files as they are now (uncommitted edits and new files included), none
    that git ignores (caches, results)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")
    target = into / "checkout"
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def fresh_env(into: Path, **extra: str) -> dict[str, str]:
    """A user who never ran ragcore: new, empty home and cache folders."""
    home = into / f"home{len(list(into.glob('home*')))}"
    (home / ".cache").mkdir(parents=True)
    return {"HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), **extra}


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    corpus = corpus or corpus_dir()
    count = 4 if quick else QUESTIONS
    with tempfile.TemporaryDirectory(prefix="ragcore-fresh-") as scratch:
        into = Path(scratch)
        checkout = fresh_checkout(into)
        arms = {"warm": run_arm(REPO, corpus, count, {}),
                "fresh": run_arm(checkout, corpus, count, fresh_env(into))}
        if not quick:
            arms["fresh, 1 thread"] = run_arm(checkout, corpus, count,
                                              fresh_env(into, RAGCORE_LLM_THREADS="1"))
    rows = [row for name, facts in arms.items() for row in arm_rows(name, facts)]
    fresh, warm = (percentile(arms[name]["whole"], 0.5) for name in ("fresh", "warm"))
    rows.append(Row(GROUP, "whole answer p50: fresh / warm", fresh / warm, "x",
                    note="the same run, one arm after the other"))
    return rows


def arm_rows(name: str, facts: dict[str, Any]) -> list[Row]:
    before, after = facts["load"]
    load = f"{before[0]:.1f}->{after[0]:.1f}" if before and after else "n/a"
    whole = facts["whole"]
    p50 = percentile(whole, 0.5)
    first = facts["first_budget"] or {}
    return [
        Row(GROUP, f"{name}: load (index, model)", facts["load_s"], "s",
            note=f"index {facts['index_s']:.1f} s; load {load} (1 min, start->end), "
                 f"{facts['threads']} thread(s)"),
        Row(GROUP, f"{name}: first answer", whole[0], "s",
            note=f"its budget {first.get('tokens')} ({first.get('reason')})"),
        Row(GROUP, f"{name}: whole answer p50", p50, "s", f"<= {TARGET_SECONDS:g}",
            p50 <= TARGET_SECONDS,
            note=f"{len(whole)} answers, every one counted; p90 {percentile(whole, 0.9):.2f} s; "
                 f"first token p50 {percentile(facts['first_token'], 0.5):.2f} s; tokens "
                 f"read p50 {percentile(facts['read'], 0.5):.0f}; budget at the end "
                 f"{facts['budget']['tokens']} ({facts['budget']['reason']})"),
    ]
