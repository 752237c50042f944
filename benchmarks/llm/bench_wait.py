"""What a person waits for (issue 56): the first content, the first token, the checked answer,
idle, beside two CPU-bound programs and beside a second ragcore answering, ratios in one run.

Over the State of the Union index (the real embedding model) and its corpus questions, the
default query engine with ``LocalLLM()`` (the Query page's and ``ragcore query``'s path), each
answer followed through ``chat.progress.turn_states`` as the CLI and the app follow it:

- first content: from the question to the passages found, which the app and the CLI show the
  moment the search returns them (``Trace.found``), before the sentences the model reads are
  chosen (target: <= 1 s; the "Looking for passages" label before them is not content); the first
  "Reading the passages" line comes ``TICK_SECONDS`` later, shown beside it;
- first token and the whole answer (the draft written and checked: what is shown as the
  answer), p50 and p90 (targets: whole p50 <= 8 s idle; busy p50 <= 2x idle);
- ragcore's own share: the whole wait less the model's reading and writing of the answer
  (llama.cpp's own timings of each pass, the gate's included), of all the answers' time
  (target: <= 10 %); the check counts as ragcore's, its judging pass too (shown apart), and the
  stages that took ragcore's time are named;
- prompt tokens per kind of question (factoid, list, why/how, summary, follow-up): the trace's
  count of every recorded call (cl100k; the gate's check question and the judge's prompt are
  not recorded calls), idle, with the reading budget the model was given then; and each one's
  whole answer (written and checked) against the idle factoids' p50 (issue 65's targets: a
  list within 2x, a follow-up within 1.3x; one question each, so a rough figure).

"Idle" is this machine as it is: other people's programs run on it, so every condition's load
average is shown beside its figures. Each answer is a new question to the model's prompt cache
(``visits``: a fresh nonce after what a person's next answer prompt shares, so the cache
keeps what it keeps for a person's next question; until 2026-11-28 the nonce came first and
nothing was kept). The model's threads are fitted again when a condition begins
(as the app would within ``REFIT_SECONDS``), not during its answers.

    python -m benchmarks --only wait [--quick]
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from benchmarks.harness import REPO, Row, machine_load
from benchmarks.llm.bench_busy import BUSY_PROGRAMS, SETTLE_SECONDS, Busy
from benchmarks.llm.bench_local_llm import _index, _questions
from benchmarks.llm.visits import Visits
from benchmarks.llm.waits import (ModelPass, OwnTime, Wait, largest_stages, own_time,
                                  percentile, pooled_share)

GROUP = "wait"
KIND_QUESTIONS = {  # one of each kind, about the State of the Union speech
    "factoid": "How many electric vehicle charging stations will the infrastructure law build?",
    "list": "What are the four parts of the Unity Agenda for the Nation?",
    "why/how": "Why did the United States release oil from its reserves?",
    "summary": "Summarise the State of the Union speech.",
}
FOLLOW_UP = ("How much is Ford investing to build electric vehicles?", "And GM?")
# The kinds' prompt tokens at 203ce6a (before issue 56's changes), measured by ``prompt_tokens``
# in a worktree of it on 2026-11-27 at load 4.4-6.2, base reading budget 160 tokens (1 thread);
# the budget follows the machine's measured speed, so compare figures read at the same budget.
BEFORE_TOKENS = {"factoid": 248, "list": 534, "why/how": 315, "summary": 514, "follow-up": 316}
BEFORE_BUDGET = 160
# A kind's whole answer against an idle factoid's (issue 65): a list reads 2.5x the passages.
KIND_TARGETS = {"list": 2.0, "follow-up": 1.3}
_SECOND = r"""
import sys
from pathlib import Path
from benchmarks.llm.bench_local_llm import _index, _questions
from ragcore.engines.from_index import query_engine_from_index
from ragcore.llms.local import LocalLLM
from benchmarks.llm.visits import Visits

corpus = Path(sys.argv[1])
index, llm, questions = _index(corpus), LocalLLM(), _questions(corpus)
print("ready", flush=True)
asked = 0
with Visits(llm) as visits:
    while True:
        visits.renew()
        engine = query_engine_from_index(index, llm=llm)
        engine.query(questions[asked % len(questions)]).checked
        asked += 1
        print("answered", asked, flush=True)
"""


class ModelClock:
    """The model's passes as llama.cpp times them (``pace.record``'s timings), from ``start``;
    each answer new to the prompt cache (``visits.renew``)."""

    def __init__(self, llm: Any) -> None:
        self.pace = llm._engine.pace  # shared by the engines' copies of the LLM
        self.visits = Visits(llm)
        self.passes: list[ModelPass] = []
        self.started = time.perf_counter()

    def __enter__(self) -> ModelClock:
        record = self.pace.record

        def timed(timings: dict, threads: int) -> None:
            self.passes.append(ModelPass(
                time.perf_counter() - self.started, int(timings.get("prompt_n", 0)),
                timings.get("prompt_ms", 0.0) / 1000, int(timings.get("predicted_n", 0)),
                timings.get("predicted_ms", 0.0) / 1000))
            record(timings, threads)

        self.pace.record = timed
        self.visits.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        del self.pace.record  # the class's own method again
        self.visits.__exit__()

    def restart(self) -> None:
        self.passes, self.started = [], time.perf_counter()


def ask(index: Any, llm: Any, clock: ModelClock, question: str) -> Wait:
    """One question, followed as the CLI follows it, new to the prompt cache (``visits``)."""
    from ragcore.chat.progress import Checked, Checking, Draft, Reading, reading_rate, turn_states
    from ragcore.engines.from_index import query_engine_from_index

    clock.visits.renew()
    engine = query_engine_from_index(index, llm=llm)
    from ragcore.trace import Trace

    clock.restart()
    seen: dict[str, float] = {}
    trace = Trace(found=lambda nodes: seen.setdefault("passages",
                                                      time.perf_counter() - clock.started))
    response = engine.query(question, trace=trace)
    seen.setdefault("passages", time.perf_counter() - clock.started)  # none found: now
    names = {Reading: "reading", Draft: "first_token", Checking: "written", Checked: "whole"}
    for state in turn_states(response, lambda text: response.checked,
                             sources=response.source_nodes, rate=lambda: reading_rate(llm)):
        seen.setdefault(names[type(state)], time.perf_counter() - clock.started)
    trace = response.trace
    return Wait(seen["passages"], seen["first_token"], seen["written"], seen["whole"],
                seen.get("reading"), tuple((s.name, s.seconds) for s in trace.stages),
                tuple(clock.passes), trace.total_tokens_in)


def refit(llm: Any) -> None:
    """The model's threads chosen again for the machine as it is now (as the app does within
    ``REFIT_SECONDS`` of a change), before a condition's answers."""
    from ragcore.llms.local import engine as engine_module

    kept, engine_module.REFIT_SECONDS = engine_module.REFIT_SECONDS, 0.0
    try:
        llm._engine.fit()
    finally:
        engine_module.REFIT_SECONDS = kept


def condition(index: Any, llm: Any, clock: ModelClock, questions: list[str]) -> dict[str, Any]:
    """The questions' waits, after the engine meets the machine as it is now: its threads fitted
    again and one answer not counted (until the engine timed a primer at each load, the first
    at other threads read the shared instructions again with the budget of an unmeasured pace;
    still uncounted, so runs compare; ``bench_fresh`` counts a process's first answers)."""
    refit(llm)
    first = ask(index, llm, clock, questions[-1])
    load_before = machine_load()
    waits = [ask(index, llm, clock, q) for q in questions]
    return {"waits": waits, "load": (load_before, machine_load()),
            "threads": llm._engine.threads, "note": f"uncounted first answer {first.whole:.2f} s"}


@contextlib.contextmanager
def second_ragcore(corpus: Path) -> Iterator[dict[str, Any]]:
    """Another ragcore process answering the corpus questions one after another meanwhile."""
    log = tempfile.TemporaryFile("w+")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (
        str(REPO), os.environ.get("PYTHONPATH"))))}
    process = subprocess.Popen([sys.executable, "-c", _SECOND, str(corpus)], cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=log, text=True)
    facts: dict[str, Any] = {"answered": 0}
    try:
        if process.stdout.readline().strip() != "ready":
            log.seek(0)
            raise RuntimeError(f"the second ragcore did not start: {log.read()[-400:]}")
        time.sleep(SETTLE_SECONDS)  # its first question is being read
        yield facts
    finally:
        process.terminate()
        try:
            out, _ = process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
        facts["answered"] = out.count("answered")
        log.close()


def prompt_tokens(index: Any, llm: Any) -> dict[str, dict[str, Any]]:
    """Each kind's prompt tokens (every recorded call), its detected kind and reading budget."""
    from ragcore.engines.from_index import chat_engine_from_index, query_engine_from_index
    from ragcore.memory import ChatMemory
    from ragcore.trace import Trace

    kinds: dict[str, dict[str, Any]] = {}
    engine = query_engine_from_index(index, llm=llm)
    for kind, question in KIND_QUESTIONS.items():
        began = time.perf_counter()
        response = engine.query(question)
        response.shown  # noqa: B018 (written whole and checked: every call recorded)
        kinds[kind] = {**_tokens(response.trace), "whole": time.perf_counter() - began}
    chat = chat_engine_from_index(index, chat_mode="condense_plus_context", llm=llm)
    memory = ChatMemory.from_llm(llm)
    first = Trace()
    chat.chat(FOLLOW_UP[0], memory, trace=first).shown  # noqa: B018
    follow = Trace()
    began = time.perf_counter()
    chat.chat(FOLLOW_UP[1], memory, trace=follow).shown  # noqa: B018
    kinds["follow-up"] = {**_tokens(follow), "first turn": first.total_tokens_in,
                          "whole": time.perf_counter() - began}
    return kinds


def _tokens(trace: Any) -> dict[str, Any]:
    base = trace.notes.get("reading_budget_base") or {}
    return {"tokens": trace.total_tokens_in, "kind": trace.notes.get("question_kind"),
            "budget": trace.notes.get("reading_budget"), "base": base.get("tokens"),
            "calls": [c.purpose for c in trace.llm_calls]}


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    from benchmarks.harness import corpus_dir
    from ragcore.llms.local import LocalLLM
    from ragcore.types import Message

    corpus = corpus or corpus_dir()
    questions = _questions(corpus)[: 4 if quick else 7]  # the factoid ones come first
    index = _index(corpus)
    llm = LocalLLM()
    index.as_query_engine(llm=llm).retrieve("warm-up: loads the embedding model")
    llm.first_token_logprobs([Message("user", "Warm-up: loads the model.")])
    conditions: dict[str, dict[str, Any]] = {}
    with ModelClock(llm) as clock:
        conditions["idle"] = condition(index, llm, clock, questions)
        kinds = prompt_tokens(index, llm)
        with Busy(BUSY_PROGRAMS):
            conditions["2 spinning"] = condition(index, llm, clock, questions)
        with second_ragcore(corpus) as second:
            conditions["2nd ragcore"] = condition(index, llm, clock, questions)
    conditions["2nd ragcore"]["note"] += f"; the other answered {second['answered']} meanwhile"
    rows = [row for name, facts in conditions.items() for row in condition_rows(name, facts)]
    idle = percentile([w.whole for w in conditions["idle"]["waits"]], 0.5)
    for name in ("2 spinning", "2nd ragcore"):
        busy = percentile([w.whole for w in conditions[name]["waits"]], 0.5)
        rows.append(Row(GROUP, f"whole answer p50: {name} / idle", busy / idle, "x", "<= 2",
                        busy / idle <= 2.0))
    rows += kind_rows(kinds, factoid=idle)
    return rows


def _load_note(facts: dict[str, Any]) -> str:
    before, after = facts["load"]
    load = f"{before[0]:.1f}->{after[0]:.1f}" if before and after else "n/a"
    return f"load {load} (1 min, start->end), {facts['threads']} thread(s)"


def condition_rows(name: str, facts: dict[str, Any]) -> list[Row]:
    waits: list[Wait] = facts["waits"]
    note = _load_note(facts) + (f"; {facts['note']}" if facts.get("note") else "")
    rows = [Row(GROUP, f"{name}: answers", len(waits), "", note=note)]
    firsts = [w.first_content for w in waits]
    readings = [w.reading for w in waits if w.reading is not None]
    rows.append(Row(GROUP, f"{name}: first content p90", percentile(firsts, 0.9), "s", "<= 1",
                    percentile(firsts, 0.9) <= 1.0,
                    note=f"the passages found; p50 {percentile(firsts, 0.5):.2f} s; first "
                         "reading line p50 " + (f"{percentile(readings, 0.5):.2f} s"
                                                if readings else "n/a")))
    for label, key in (("first token", "first_token"), ("whole answer", "whole")):
        values = [getattr(w, key) for w in waits]
        p50 = percentile(values, 0.5)
        target = ("<= 8", p50 <= 8.0) if key == "whole" and name == "idle" else ("", None)
        rows.append(Row(GROUP, f"{name}: {label} p50", p50, "s", *target))
        rows.append(Row(GROUP, f"{name}: {label} p90", percentile(values, 0.9), "s"))
    times = [own_time(w) for w in waits]
    rows += share_rows(name, times)
    return rows


def share_rows(name: str, times: list[OwnTime]) -> list[Row]:
    share = pooled_share(times)
    judged = (sum(t.seconds - t.judge for t in times) / sum(t.whole for t in times)
              if times else 0.0)
    stages = "; ".join(f"{stage} {seconds:.2f} s" for stage, seconds in largest_stages(times))
    model = percentile([t.model for t in times], 0.5)
    return [Row(GROUP, f"{name}: ragcore's own share", 100 * share, "%", "<= 10", share <= 0.10,
                note=f"median s/answer: {stages}; the model's answer passes {model:.1f} s; "
                     f"{100 * judged:.0f} % with the check's judging pass as the model's")]


def kind_rows(kinds: dict[str, dict[str, Any]], factoid: float | None = None) -> list[Row]:
    """Each kind's prompt tokens, and its whole answer (written and checked, asked idle right
    after the idle condition) against the idle factoids' p50 (``factoid``), where the issue
    sets a target: a list within ``KIND_TARGETS`` x a factoid, a follow-up too."""
    rows = []
    for kind, facts in kinds.items():
        if factoid and facts.get("whole") is not None:
            ratio = facts["whole"] / factoid
            target = KIND_TARGETS.get(kind)
            rows.append(Row(GROUP, f"whole answer: {kind} / idle factoid p50", ratio, "x",
                            f"<= {target}" if target else "",
                            None if target is None else ratio <= target,
                            note=f"{facts['whole']:.1f} s against {factoid:.1f} s"))
        before = BEFORE_TOKENS.get(kind)
        extra = f"; first turn {facts['first turn']}" if "first turn" in facts else ""
        rows.append(Row(
            GROUP, f"prompt tokens: {kind}", facts["tokens"], "tokens",
            note=f"before (203ce6a, base budget {BEFORE_BUDGET}): {before}; "
                 f"read as {facts['kind']}, budget {facts['budget']} (base {facts['base']}); "
                 f"calls {', '.join(facts['calls'])}{extra}"))
    return rows
