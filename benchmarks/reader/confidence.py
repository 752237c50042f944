"""The packaged model's own confidence in its short answer, beside the reader, as a check.

    python -m benchmarks.reader.confidence ROWS.jsonl [--out FILE] [--limit N] [--threads N]

Each recorded reply (``squad_local`` rows: the question, the passages it read, its answer) is
asked again the way the query asked it (the ``qa`` prompt over the same passages, begun with
"**"), greedily, with the log-probability of every token the model writes. The short answer
is what it writes before the closing "**"; its tokens' log-probabilities give four signals
(their mean, the least, the first, and the first token's margin over the runner-up). A reply
is right when its short answer holds a gold answer (every answer to an unanswerable question
is wrong). Each signal's AUC (right against wrong) is printed beside the reader's chance for
the best sentence holding the short answer (``checked.py``'s plain score), and the two
together by the mean of their ranks (no weights fitted). The rows, with every signal, go to
``--out`` so the measure can be read again without the model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.answers.squad import contains_gold
from benchmarks.reader.auc import auc
from ragcore.grounding.claims import sentence_spans
from ragcore.prompts.answer import ANSWER_OPENING, QA
from ragcore.reading.model import Reader
from ragcore.reading.text import prose, reader_text
from ragcore.types import Message

SIGNALS = ("mean", "least", "first", "margin")


def asked(llm, row: dict) -> dict:
    """The row asked again: the short answer written and its tokens' log-probabilities."""
    messages = [*QA.format(context="\n\n".join(row["passages"]), question=row["question"]),
                Message("assistant", ANSWER_OPENING)]
    body = {**llm._body(messages), "max_tokens": 24, "logprobs": True, "top_logprobs": 2}
    started = time.perf_counter()
    reply = llm._engine.complete(body)
    tokens = (reply["choices"][0].get("logprobs") or {}).get("content") or []
    short, chances = "", []
    for token in tokens:
        if "**" in token["token"]:
            short += token["token"].split("**")[0]
            break
        short += token["token"]
        tops = [t["logprob"] for t in token.get("top_logprobs", [])]
        chances.append((token["logprob"], tops[1] if len(tops) > 1 else -30.0))
    found = {"short": short.strip(), "seconds": time.perf_counter() - started}
    if chances:
        found.update(mean=float(np.mean([c for c, _ in chances])),
                     least=min(c for c, _ in chances), first=chances[0][0],
                     margin=chances[0][0] - chances[0][1])
    return found


def reader_chance(reader: Reader, row: dict, short: str) -> float | None:
    """The reader's chance for the best passage sentence holding ``short`` (None: none does)."""
    texts = []
    for passage in row["passages"]:
        spans = sentence_spans(passage, wrapped=True)
        for i, (a, b) in enumerate(spans):
            sentence = passage[a:b]
            if short and short.casefold() in sentence.casefold() and prose(sentence):
                texts.append(reader_text(sentence, "", passage[slice(*spans[i - 1])]
                                         if i else ""))
    return max(reader.score(row["question"], texts)) if texts else None


def report(rows: list[dict]) -> str:
    held = [r for r in rows if "mean" in r and r["short"]]
    wrong = [r for r in held if not r["right"]]
    lines = [f"{len(held)} short answers: {len(held) - len(wrong)} right, {len(wrong)} wrong "
             f"({sum(not r['answerable'] for r in wrong)} to unanswerable questions)"]
    lines += [f"AUC {signal:<7} {right_auc(held, signal):.3f}" for signal in SIGNALS]
    read = [r for r in held if r.get("reader") is not None]
    if read:
        right = sum(r["right"] for r in read)
        lines.append(f"on the {len(read)} a sentence holds ({right} right, "
                     f"{len(read) - right} wrong):")
        lines.append(f"AUC reader  {right_auc(read, 'reader'):.3f}")
        lines.append(f"AUC mean    {right_auc(read, 'mean'):.3f}")
        both = [{**r, "both": b} for r, b in zip(read, rank_mean(read, ("reader", "mean")))]
        lines.append(f"AUC both    {right_auc(both, 'both'):.3f}  (mean of ranks)")
    return "\n".join(lines)


def right_auc(rows: list[dict], signal: str) -> float:
    """The AUC of ``signal`` keeping the right replies above the wrong ones."""
    return auc([r[signal] for r in rows if r["right"]], [r[signal] for r in rows if not r["right"]])


def rank_mean(rows: list[dict], names: tuple[str, ...]) -> list[float]:
    """Each row's mean rank over ``names``: signals joined with no weights fitted."""
    ranks = [np.asarray([r[n] for r in rows]).argsort().argsort() for n in names]
    return list(np.mean(ranks, axis=0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--limit", type=int)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--report", action="store_true", help="read --out's rows, ask nothing")
    args = parser.parse_args()
    if args.report:
        print(report([json.loads(line) for line in args.out.read_text().splitlines()]))
        return
    from ragcore.llms.local import LocalLLM

    llm = LocalLLM(threads=args.threads, temperature=0.0)
    reader = Reader(threads=1)
    rows = [json.loads(line) for line in args.rows.read_text(encoding="utf-8").splitlines()]
    out = []
    for n, row in enumerate(rows[:args.limit]):
        found = asked(llm, row)
        found["right"] = bool(row["golds"]) and bool(found["short"]) and contains_gold(
            found["short"], row["golds"])
        found["answerable"] = bool(row["golds"])
        found["reader"] = reader_chance(reader, row, found["short"])
        found["id"] = row["id"]
        out.append(found)
        sys.stderr.write(f"{n + 1}/{len(rows)} {found['short'][:40]!r} right={found['right']} "
                         f"mean={found.get('mean', math.nan):.2f} reader={found['reader']} "
                         f"{found['seconds']:.1f} s\n")
        if args.out:
            args.out.write_text("".join(json.dumps(r) + "\n" for r in out))
    print(report(out))


if __name__ == "__main__":
    main()
