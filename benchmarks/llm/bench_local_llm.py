"""The packaged language model's speed on this machine (issue 32), ratios measured in one run.

Over an index of the State of the Union speech (the real embedding model) and the corpus
questions about it (``answers/questions.jsonl``), the default query engine with ``LocalLLM()``:

- passages ready: seconds from the question to the retrieved passages (what the app shows
  first), p50 (target: within 1 s);
- time to the first token of the model's answer, p50 and p90, at 2 and 4 threads (targets:
  p50 <= 4 s, p90 <= 8 s; the cores decide, so 4 threads on 2 cores is worse);
- decode speed through ``LocalLLM.stream`` against the same bindings' raw completion of the same
  messages with the same threads (llama.cpp's own ``predicted_per_second``): >= 90 %;
- a fresh process to the first streamed token (import, verify, load, answer: <= 8 s);
- resident memory the model adds (after a load and an answer) against the GGUF file: <= 1.3x;
- Stop: seconds from closing a stream mid-reply until its decoding ended (<= 0.5 s).

    python -m benchmarks --only local_llm
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.harness import Row

GROUP = "local_llm"
QUESTIONS = Path(__file__).resolve().parents[1] / "answers" / "questions.jsonl"
_FRESH = r"""
import json, resource, sys, time
started = time.perf_counter()
from ragcore.llms.local import LocalLLM
from ragcore.types import Message
def rss():
    return int(open('/proc/self/statm').read().split()[1]) * 4096 / 1e6
before = rss()
llm = LocalLLM(sys.argv[1])
stream = llm.stream([Message('user', 'Name one colour of the rainbow.')])
next(stream)
first = time.perf_counter() - started
for _ in stream:
    pass
print(json.dumps({"first": first, "added_mb": rss() - before}))
"""


def _questions(corpus: Path) -> list[str]:
    rows = [json.loads(line) for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return [r["question"] for r in rows if r["collection"] == "state_of_the_union"]


def _index(corpus: Path):
    from ragcore import SimpleDirectoryReader, VectorStoreIndex

    documents = SimpleDirectoryReader(input_dir=corpus / "state_of_the_union").load_data()
    for document in documents:  # as the app's ingest does: the model reads the file's name only
        document.excluded_llm_metadata_keys.append("file_path")
    return VectorStoreIndex.from_documents(documents)


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _first_tokens(index, llm, questions: list[str]) -> tuple[list[float], list[float]]:
    """Seconds to the passages and to the first answer token, per question."""
    engine = index.as_query_engine(llm=llm)
    engine.retrieve("warm-up: loads the embedding model, not a question's cost")
    passages, firsts = [], []
    for question in questions:
        started = time.perf_counter()
        response = engine.query(question)  # retrieved; the answer streams when read
        passages.append(time.perf_counter() - started)
        stream = iter(response)
        next(stream, None)
        firsts.append(time.perf_counter() - started)
        for _ in stream:
            pass
    return passages, firsts


def _decode_ratio(llm, rounds: int = 3) -> tuple[float, float]:
    """Tokens per second through ``LocalLLM.stream`` and llama.cpp's raw rate, same messages,
    taken in turns ``rounds`` times (medians), so both see the same machine load.

    The reply is greedy, so both runs decode the same tokens: the raw run's token count is the
    streamed one's (chunks are not tokens: llama.cpp joins the bytes of a split character).
    """
    from ragcore.types import Message

    messages = [Message("user", "Write ten sentences about the sea.")]
    body = {**llm._body(messages), "max_tokens": 120}
    ours, raws = [], []
    for _ in range(rounds):
        raw = llm._engine.complete(body)
        raws.append(raw["timings"]["predicted_per_second"])
        tokens = raw["usage"]["completion_tokens"]
        stamps = [time.perf_counter() for _ in llm._engine.stream(body)]
        ours.append((tokens - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0)
    return statistics.median(ours), statistics.median(raws)


def _stop_seconds(llm) -> float:
    from ragcore.types import Message

    body = {**llm._body([Message("user", "Count from 1 to 2000.")]), "max_tokens": 1000,
            "ignore_eos": True}
    stream = llm._engine.stream(body)
    for _ in range(3):
        next(stream)
    workers = [t for t in threading.enumerate() if t.name == "ragcore-local-llm"]
    started = time.perf_counter()
    stream.close()
    for worker in workers:
        worker.join(30)
    return time.perf_counter() - started


def _fresh(model: str) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", _FRESH, model], capture_output=True, text=True,
                         check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    from benchmarks.harness import corpus_dir
    from ragcore.llms.local import LocalLLM
    from ragcore.llms.local_models import default_model

    corpus = corpus or corpus_dir()
    model = default_model()
    questions = _questions(corpus)[: 4 if quick else 11]
    index = _index(corpus)
    rows: list[Row] = []
    for threads in (2,) if quick else (2, 4):
        llm = LocalLLM(model.name, threads=threads)
        passages, firsts = _first_tokens(index, llm, questions)
        p50, p90 = statistics.median(firsts), _percentile(firsts, 0.9)
        rows += [
            Row(GROUP, f"{threads} threads: time to first token p50", p50, "s", "<= 4",
                p50 <= 4),
            Row(GROUP, f"{threads} threads: time to first token p90", p90, "s", "<= 8",
                p90 <= 8),
        ]
        if threads == 2:
            ready = statistics.median(passages)
            rows.append(Row(GROUP, "passages ready p50", ready, "s", "<= 1", ready <= 1,
                            note=f"{len(questions)} questions, {len(index)} chunks"))
            ours, raw = _decode_ratio(llm)
            rows.append(Row(GROUP, "decode speed vs raw bindings", ours / raw, "x", ">= 0.9",
                            ours / raw >= 0.9, note=f"{ours:.1f} vs {raw:.1f} tokens/s"))
            stop = _stop_seconds(llm)
            rows.append(Row(GROUP, "stop: decoding ended after", stop, "s", "<= 0.5",
                            stop <= 0.5))
    fresh = _fresh(model.name)
    ratio = fresh["added_mb"] * 1e6 / model.size
    rows += [
        Row(GROUP, "fresh process to first token", fresh["first"], "s", "<= 8",
            fresh["first"] <= 8, note=model.name),
        Row(GROUP, "memory added / GGUF size", ratio, "x", "<= 1.3", ratio <= 1.3,
            note=f"{fresh['added_mb']:.0f} MB added, file {model.size / 1e6:.0f} MB"),
    ]
    return rows
