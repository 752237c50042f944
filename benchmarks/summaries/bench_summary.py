"""A summary without minutes of silence (issue 56): its first words, and Stop in the middle.

Over a workspace of two NIST papers (the real embedding model, the packaged ``LocalLLM``), as
the Chat page and ``ragcore chat`` ask (``workspace.conversation``), each reply read through
``chat.progress.pulled`` as the page reads it:

- first words of "Summarise <paper>" (the paper's own abstract, at once), idle and beside two
  CPU-bound programs (target: <= 2 s);
- a fresh summary ("Write a fresh summary of <paper>"): its first words (the heading, before
  the model reads) and the model's first words;
- Stop in the middle of a fresh summary (while the model writes part 2), then a question: its
  first token, against the same kind of question asked with nothing running (target: <= 1.2x),
  and how many of the summary's model calls ran (a stopped summary runs no more).

"Idle" is this machine as it is (other people's programs run on it): load averages are shown.

    python -m benchmarks.summaries.bench_summary
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from benchmarks.harness import Row, corpus_dir, machine_load
from benchmarks.llm.bench_busy import BUSY_PROGRAMS, Busy

GROUP = "summary"
PAPERS = ("NIST.SP.800-207-ZeroTrustArchitecture.pdf", "NIST.SP.800-218.pdf")
ASK_KEPT = ("Summarise the zero trust architecture paper.", "What is NIST.SP.800-218 about?")
WARM_UP = "What is zero trust?"
# Pairs of like questions: one asked with nothing running, the other right after a Stop.
PAIRS = (("What is a policy enforcement point?", "What is a policy decision point?"),
         ("Who wrote the zero trust architecture?", "Who wrote the SSDF publication?"),
         ("What does PO.1 ask producers to define?", "What does PW.1 ask producers to do?"))


class Counting:
    """The model, its calls counted (a stopped summary must run no more of them)."""

    def __init__(self, llm: Any) -> None:
        self.llm, self.calls = llm, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.llm, name)

    def stream(self, messages: Any) -> Iterator[str]:
        self.calls += 1
        return self.llm.stream(messages)

    def with_stop(self, stop: Any) -> Counting:
        counted = Counting(self.llm.with_stop(stop))
        counted.stream = lambda messages: self._count(counted.llm, messages)
        return counted

    def _count(self, llm: Any, messages: Any) -> Iterator[str]:
        self.calls += 1
        return llm.stream(messages)


def read(reply: Any) -> Iterator[str]:
    """A reply's chunks, the reply closed when they are no longer read (the page's
    ``kept_stream``): what Stop does."""
    try:
        yield from reply
    finally:
        reply.close()


def workspace(root: Path) -> Any:
    from ragcore.workspace import Workspace

    ws = Workspace(root)
    report = ws.ingest("papers", [corpus_dir() / "nist_pdfs" / name for name in PAPERS])
    if report.failed:
        raise RuntimeError(f"ingest failed: {report}")
    return ws


def talk(ws: Any, llm: Any) -> Any:
    from ragcore.workspace.conversation import Conversation, start_chat

    return Conversation(ws, start_chat("papers", "condense_plus_context"),
                        ws.load_index("papers"), llm)


def first_words(ws: Any, llm: Any, question: str) -> float:
    """Seconds from the question to the first text of its reply, read as the page reads it."""
    from ragcore.chat import pulled
    from ragcore.workspace.conversation import TurnSettings

    began = time.perf_counter()
    reply = talk(ws, llm).ask(question, TurnSettings())
    chunks = pulled(read(reply))
    try:
        for chunk in chunks:
            if chunk:
                return time.perf_counter() - began
    finally:
        chunks.close()
    raise RuntimeError(f"no reply to {question!r}")


def stop_mid_summary(ws: Any, llm: Any) -> dict[str, Any]:
    """A fresh summary read until the model writes its second part, then stopped."""
    from ragcore.chat import pulled
    from ragcore.workspace.conversation import TurnSettings

    counted = Counting(llm)
    began = time.perf_counter()
    reply = talk(ws, counted).ask(f"Write a fresh summary of {PAPERS[0]}", TurnSettings())
    chunks, text, seen = pulled(read(reply)), "", {}
    for chunk in chunks:
        if chunk:
            text += chunk
            seen.setdefault("heading", time.perf_counter() - began)
            if "**Part 1 of" in text and not text.rstrip().endswith("**"):
                seen.setdefault("model words", time.perf_counter() - began)
            if "**Part 2 of" in text and len(text.split("**Part 2 of")[1]) > 40:
                break
    chunks.close()  # Stop, as the page's: the reader stops, the reply is closed
    calls = counted.calls
    time.sleep(1.0)
    return {**seen, "calls at stop": calls, "calls 1 s later": counted.calls,
            "stopped after": time.perf_counter() - began - 1.0}


def run() -> list[Row]:
    from ragcore.llms.local import LocalLLM

    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder:
        ws = workspace(Path(folder) / "ws")
        llm = LocalLLM()
        # Warm-up (the embedding model, the weights) with a question asked only here: a
        # question asked twice finds its prompt in the model's cache and answers in 0.4 s.
        first_words(ws, llm, WARM_UP)
        for name, busy in (("idle", 0), ("2 spinning", BUSY_PROGRAMS)):
            with Busy(busy):
                load = machine_load()
                times = [first_words(ws, llm, q) for q in ASK_KEPT * 3]
            worst = max(times)
            print(f"{name}: {[round(t, 2) for t in times]} load {load}", flush=True)
            rows.append(Row(GROUP, f"'summarise <paper>' first words, worst of {len(times)}, "
                            f"{name}", worst, "s", "<= 2", worst <= 2.0, f"load {load}"))
        idle, after, notes = [], [], []
        for before_q, after_q in PAIRS:
            load = machine_load()
            idle.append(first_words(ws, llm, before_q))
            stopped = stop_mid_summary(ws, llm)
            after.append(first_words(ws, llm, after_q))
            notes.append(f"{stopped}, load {load}")
            print(f"idle {idle[-1]:.2f} s, after Stop {after[-1]:.2f} s: {notes[-1]}", flush=True)
        ratio = statistics.median(after) / statistics.median(idle)
        rows += [
            Row(GROUP, "fresh summary: heading", stopped["heading"], "s", "<= 2",
                stopped["heading"] <= 2.0),
            Row(GROUP, "fresh summary: the model's first words", stopped.get("model words"),
                "s"),
            Row(GROUP, "question's first token, nothing running (p50)",
                statistics.median(idle), "s", note=f"{[round(t, 1) for t in idle]}"),
            Row(GROUP, "question's first token after Stop mid-summary (p50)",
                statistics.median(after), "s", note=f"{[round(t, 1) for t in after]}"),
            Row(GROUP, "after Stop / nothing running", ratio, "x", "<= 1.2", ratio <= 1.2,
                " | ".join(notes)),
        ]
    return rows


if __name__ == "__main__":
    import json

    for row in run():
        print(json.dumps(row.__dict__ if hasattr(row, "__dict__") else
                         {f: getattr(row, f) for f in row.__slots__}, ensure_ascii=False))
