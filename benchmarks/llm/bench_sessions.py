"""Several people, one model (issue 42): four sessions ask at once through one shared engine.

Four threads, each a browser session in miniature, run the default query engine with the
default packaged model (``LocalLLM()``: one question at a time) over the State of the Union
index of ``bench_local_llm``, all released together. Each asks inside one turn with a
``waiting_reporter``, the way the app's pages do (``webapp.waiting``), so a session that has to
wait records the place it was shown first. Rows:

- answered: how many of the four got a non-empty answer (target: all 4);
- shown its place: per session, the first place in line reported (a session that found a free
  slot waited for nothing and is told nothing); with one admitted at a time, three of four wait:
  a question's calls (the gate's pass, the answer) share its one place (``one_turn``);
- whole answer p50 and max: seconds from the question to the answer's last chunk;
- first token, per session: seconds from the question to the first chunk of the answer.

    python -m benchmarks --only sessions
"""

from __future__ import annotations

import statistics
import threading
import time
from pathlib import Path

from benchmarks.harness import Row
from benchmarks.llm.bench_local_llm import _index, _questions

GROUP = "sessions"
SESSIONS = 4


def _session(engine, question: str, start: threading.Barrier, out: dict) -> None:
    """One person asking: the place first shown, time to first token, to the whole answer."""
    from ragcore.llms import one_turn, waiting_reporter

    shown: list[int] = []
    start.wait()
    began = time.perf_counter()
    try:
        with waiting_reporter(shown.append), one_turn():
            response = engine.query(question)
            chunks = iter(response)
            first = next(chunks, "")
            out["first"] = time.perf_counter() - began
            text = first + "".join(chunks)
        out["whole"] = time.perf_counter() - began
        out["answered"] = bool(text.strip())
    except Exception as exc:  # noqa: BLE001 - a session that fails is a row, not a crash
        out["error"] = f"{type(exc).__name__}: {exc}"
    out["shown"] = shown[0] if shown else None


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    from benchmarks.harness import corpus_dir
    from ragcore.llms.local import LocalLLM

    corpus = corpus or corpus_dir()
    index = _index(corpus)
    llm = LocalLLM()  # the app's default: one shared engine, one question at a time
    engine = index.as_query_engine(llm=llm)
    engine.retrieve("warm-up: loads the embedding model, not a question's cost")
    questions = _questions(corpus)[:SESSIONS]
    start = threading.Barrier(SESSIONS)
    results: list[dict] = [{} for _ in questions]
    threads = [threading.Thread(target=_session, args=(engine, q, start, out))
               for q, out in zip(questions, results)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    slots = llm._engine.slots.slots  # questions admitted at once (one: QUESTIONS_AT_ONCE)
    answered = sum(bool(r.get("answered")) for r in results)
    errors = "; ".join(r["error"] for r in results if "error" in r)
    rows = [Row(GROUP, f"answered ({SESSIONS} sessions, {slots} slots)", answered, "",
                f"= {SESSIONS}", answered == SESSIONS, note=errors or llm.name)]
    waited = [r["shown"] for r in results if r.get("shown") is not None]
    for n, r in enumerate(results, 1):
        place = r.get("shown")
        rows.append(Row(GROUP, f"session {n}: place first shown", place, "ahead",
                        note="found a free slot: nothing shown" if place is None else ""))
    # A question's calls share its turn: the first runs, the others wait.
    rows.append(Row(GROUP, "sessions shown their place", len(waited), "",
                    f">= {SESSIONS - slots}", len(waited) >= SESSIONS - slots))
    wholes = [r["whole"] for r in results if "whole" in r]
    if wholes:
        rows += [Row(GROUP, "whole answer p50", statistics.median(wholes), "s"),
                 Row(GROUP, "whole answer max", max(wholes), "s")]
    for n, r in enumerate(results, 1):
        rows.append(Row(GROUP, f"session {n}: time to first token", r.get("first"), "s"))
    state = llm._engine.queue_state()
    rows.append(Row(GROUP, "slots left held afterwards", state.running + state.waiting, "",
                    "= 0", state.running + state.waiting == 0))
    return rows
