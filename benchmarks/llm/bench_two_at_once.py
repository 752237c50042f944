"""Two people, one model (issue 65): two answers at once, or one after the other?

Two prompts of the app's size (the answer's instructions, ~300 tokens of State of the Union
passages, a question) both asked at the same moment, through the packaged model
(``resolve_llm("local")``: one shared engine, two slots). Concurrent: both decoded together in
the engine's two slots. Serial: the second waits until the first is whole (one slot's worth of
admission, as ``one_turn`` with one slot would give). Each person's whole answer is timed from
the moment both asked, so the serial second person's time includes the wait; rows per pair:

- person 1, person 2: seconds to the whole answer, and their words a second while writing;
- sum: both people's seconds together (what the two of them spent waiting, in all).

Each prompt carries a fresh nonce first, so no condition reads another's prompt from the cache.
The load average is printed beside each condition: this machine's 2 cores are shared.

    python -m benchmarks --only two_at_once     (or python -m benchmarks.llm.bench_two_at_once)
"""

from __future__ import annotations

import secrets
import sys
import threading
import time
from pathlib import Path

from benchmarks.harness import Row, corpus_dir, format_table, machine_load

GROUP = "two_at_once"
PAIRS = 2  # each condition's pairs of questions (quick: 1)
QUESTIONS = (
    ("What did the speech say about Ukraine?", "What did the speech say about jobs?"),
    ("What did the speech say about prices?", "What did the speech say about the pandemic?"),
)
SYSTEM = ("Answer the question using only the passages. Cite passages as [1], [2]. If the "
          "passages do not hold the answer, say so. Answer in at most three sentences.")
PASSAGE_WORDS = 230  # ~300 tokens: the app's reading budget on two idle cores


def _passages(corpus: Path, offset: int) -> str:
    words = (corpus / "state_of_the_union" / "state_of_the_union.txt").read_text(
        encoding="utf-8").split()
    start = 400 + offset * PASSAGE_WORDS
    half = PASSAGE_WORDS // 2
    return (f"[1] {' '.join(words[start:start + half])}\n\n"
            f"[2] {' '.join(words[start + half:start + PASSAGE_WORDS])}")


def _messages(question: str, passages: str) -> list:
    from ragcore.types import Message

    return [Message("system", SYSTEM),
            Message("user", f"({secrets.token_hex(4)})\nPassages:\n{passages}\n\n"
                            f"Question: {question}")]


def _ask(llm, messages: list, began: float, out: dict) -> None:
    first, words = None, ""
    for chunk in llm.stream(messages):
        if first is None and chunk:
            first = time.perf_counter() - began
        words += chunk
    out.update(whole=time.perf_counter() - began, first=first or 0.0,
               words=len(words.split()))


def _pair(llm, asks: list[list], *, together: bool) -> list[dict]:
    results: list[dict] = [{}, {}]
    began = time.perf_counter()
    if together:
        threads = [threading.Thread(target=_ask, args=(llm, m, began, out))
                   for m, out in zip(asks, results)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    else:
        for messages, out in zip(asks, results):
            _ask(llm, messages, began, out)
    return results


def _rows(condition: str, pair: int, results: list[dict], load: str) -> list[Row]:
    rows = []
    for person, r in enumerate(results, 1):
        rate = r["words"] / max(r["whole"] - r["first"], 1e-6)
        rows.append(Row(GROUP, f"{condition} pair {pair}: person {person} whole answer",
                        r["whole"], "s", note=f"first word {r['first']:.1f} s, {r['words']} "
                                              f"words at {rate:.1f} words/s; {load}"))
    rows.append(Row(GROUP, f"{condition} pair {pair}: sum of both", results[0]["whole"]
                    + results[1]["whole"], "s"))
    return rows


def run(quick: bool = False, corpus: Path | None = None) -> list[Row]:
    from ragcore.llms.resolve import resolve_llm

    corpus = corpus or corpus_dir()
    llm = resolve_llm("local")
    "".join(llm.stream(_messages("Say hello.", "[1] Hello.")))  # loads the model: not timed
    rows: list[Row] = []
    totals = {"concurrent": [], "serial": []}
    for pair in range(1 if quick else PAIRS):
        for condition in ("concurrent", "serial"):  # the same two prompts, fresh nonces
            asks = [_messages(q, _passages(corpus, pair * 2 + n))
                    for n, q in enumerate(QUESTIONS[pair])]
            load = f"load {(machine_load() or [0])[0]:.1f}"
            results = _pair(llm, asks, together=condition == "concurrent")
            rows += _rows(condition, pair + 1, results, load)
            totals[condition].append(results)
            sys.stderr.write(f"[{GROUP}] {condition} pair {pair + 1}: "
                             f"{results[0]['whole']:.1f} s, {results[1]['whole']:.1f} s\n")
    for condition, pairs in totals.items():
        firsts = sum(p[0]["whole"] for p in pairs) / len(pairs)
        seconds = sum(p[1]["whole"] for p in pairs) / len(pairs)
        rows.append(Row(GROUP, f"{condition}: mean of person 1 / person 2 / sum", firsts + seconds,
                        "s", note=f"{firsts:.1f} s / {seconds:.1f} s"))
    return rows


if __name__ == "__main__":
    print(format_table(run(quick="--quick" in sys.argv)))
