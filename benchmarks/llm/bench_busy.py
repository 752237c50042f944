"""The packaged model on a busy machine (issue 42): idle, then with two CPU-bound programs beside
it, ratios measured in one run.

Over the State of the Union index (the real embedding model) and its corpus questions, the default
query engine with ``LocalLLM()`` (threads and reading budget fitted to the machine):

- the threads and reading budget chosen idle and busy, and why (``LocalLLM.pace_note``);
- time to the first token and whole-answer time, p50, idle and busy (target: busy <= 2x idle);
- the not-found gate's cost: the answer's whole time with the gate against the same question
  without it, in turns (target: the difference <= 25 % of the answer's time, idle and busy); the
  gate stage's own wall time is shown beside it, though most of it is reading the prompt the
  answer then reuses;
- for comparison, busy with the threads fixed at every core (what ragcore did before).

Each answer is a new question to the model's prompt cache (``visits``: a fresh nonce after what
a person's next answer prompt shares; until 2026-11-28 the nonce came first). The busy programs are plain spin loops in processes of their own. The engine may reload with other
threads at once here (``REFIT_SECONDS`` 0): the app waits 30 s between reloads.

    python -m benchmarks --only busy
"""

from __future__ import annotations

import multiprocessing
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.harness import Row
from benchmarks.llm.bench_local_llm import _index, _questions
from benchmarks.llm.visits import Visits

GROUP = "busy"
BUSY_PROGRAMS = 2
SETTLE_SECONDS = 4.0  # for the machine watch to see the busy programs


def _spin(stop: Any) -> None:
    while not stop.is_set():
        for _ in range(100_000):
            pass


class Busy:
    """``count`` CPU-bound processes, running while the block runs."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.stop = multiprocessing.Event()
        self.workers: list[multiprocessing.Process] = []

    def __enter__(self) -> Busy:
        self.workers = [multiprocessing.Process(target=_spin, args=(self.stop,), daemon=True)
                        for _ in range(self.count)]
        for worker in self.workers:
            worker.start()
        time.sleep(SETTLE_SECONDS)
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for worker in self.workers:
            worker.join(10)
            if worker.is_alive():
                worker.terminate()


def _answer(index, llm, question: str, *, gate: bool) -> dict[str, float]:
    """One answer read whole: first token, whole time, gate stage; new to the prompt cache."""
    from ragcore.engines.from_index import query_engine_from_index

    engine = query_engine_from_index(index, llm=llm)
    if not gate:
        engine.synthesizer.not_found_gate = None
    with Visits(llm):
        started = time.perf_counter()
        response = engine.query(question)
        stream = iter(response)
        next(stream, None)
        first = time.perf_counter() - started
        for _ in stream:
            pass
        whole = time.perf_counter() - started
    stages = {s.name: s.seconds for s in response.trace.stages}
    return {"first": first, "whole": whole, "gate": stages.get("not-found gate", 0.0),
            "pace": response.trace.notes.get("model_pace")}


def _condition(index, llm, questions: list[str]) -> dict[str, Any]:
    """Each question with and without the gate, in turns, the two arms taking turns to go
    first; medians. One answer before them is not counted: the one that meets the machine's
    change (the engine reloads with other threads, and its pace for them is first measured),
    as a person's first question does once; the arm that always went first had paid it, with
    the reload in its gate stage and the other thread count's reading budget."""
    _answer(index, llm, questions[-1], gate=False)
    gated, plain = [], []
    for turn, question in enumerate(questions):
        for gate in ((True, False) if turn % 2 == 0 else (False, True)):
            (gated if gate else plain).append(_answer(index, llm, question, gate=gate))
    median = statistics.median
    return {
        "first": median(r["first"] for r in gated), "whole": median(r["whole"] for r in gated),
        "plain_whole": median(r["whole"] for r in plain),
        "gate_stage": median(r["gate"] for r in gated),
        "added": median(g["whole"] - p["whole"] for g, p in zip(gated, plain)),
        "pace": gated[-1]["pace"] or {},
    }


def _pace_note(pace: dict) -> str:
    threads = pace.get("threads") or {}
    budget = pace.get("reading_budget") or {}
    return (f"{threads.get('threads')} thread(s): {threads.get('reason')}; reading "
            f"{budget.get('tokens')} tokens: {budget.get('reason')}")


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    from benchmarks.harness import corpus_dir
    from ragcore.llms.local import LocalLLM
    from ragcore.llms.local import engine as engine_module

    corpus = corpus or corpus_dir()
    questions = _questions(corpus)[: 2 if quick else 4]
    index = _index(corpus)
    engine_module.REFIT_SECONDS = 0.0  # reload at once when the machine changes
    llm = LocalLLM()
    _answer(index, llm, "warm-up: loads the embedding model", gate=False)
    idle = _condition(index, llm, questions)
    with Busy(BUSY_PROGRAMS):
        busy = _condition(index, llm, questions)
        fixed = _condition(index, LocalLLM(threads=_all_cores()), questions[:2])
    rows = [
        Row(GROUP, "idle: threads and reading budget", idle["pace"].get("threads", {}).get(
            "threads"), "threads", note=_pace_note(idle["pace"])),
        Row(GROUP, "busy: threads and reading budget", busy["pace"].get("threads", {}).get(
            "threads"), "threads", note=_pace_note(busy["pace"])),
        Row(GROUP, "first token p50, idle", idle["first"], "s"),
        Row(GROUP, "first token p50, busy", busy["first"], "s"),
        Row(GROUP, "whole answer p50, idle", idle["whole"], "s"),
        Row(GROUP, "whole answer p50, busy", busy["whole"], "s"),
    ]
    for name, key in (("first token", "first"), ("whole answer", "whole")):
        ratio = busy[key] / idle[key]
        rows.append(Row(GROUP, f"{name}: busy / idle", ratio, "x", "<= 2", ratio <= 2.0))
    for label, condition in (("idle", idle), ("busy", busy)):
        share = condition["added"] / condition["whole"]
        rows.append(Row(GROUP, f"gate's added time / answer, {label}", 100 * share, "%",
                        "<= 25", share <= 0.25,
                        note=f"{condition['added']:.2f} s of {condition['whole']:.1f} s; the "
                             f"gate stage took {condition['gate_stage']:.1f} s, mostly reading "
                             "the prompt the answer reuses"))
    rows.append(Row(GROUP, "busy, every core's thread (before): whole answer p50", fixed["whole"],
                    "s", note=f"{fixed['whole'] / busy['whole']:.1f}x the fitted threads' "
                              f"{busy['whole']:.1f} s"))
    return rows


def _all_cores() -> int:
    from ragcore.llms.local.machine import allowed_cores

    return allowed_cores()
