"""The reader as the check reads a reply: does the sentence holding the model's short answer
say that it is the answer?

    python -m benchmarks.reader.checked [--weights FOLDER] [rows.jsonl ...]

On the packaged model's recorded SQuAD replies (``squad_local`` rows: the question, the
passages it read, its answer), each reply whose bold short answer a passage sentence holds is
scored by the best of those sentences, two ways: the plain reader (the question alone: "does
this sentence state an answer?", what ``located`` read before) and the answered reader (the
question with the short answer: ``training.reader.answered.asked_with``). A reply is right
when its short answer holds a gold answer; wrong ones include every answer to an unanswerable question. The
AUC says how well each score keeps the right ones above the wrong ones, and the table below it
how many of each a threshold keeps. The default rows: the official dev split's (judged, never
trained on) and the training article the check's thresholds are chosen on.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.answers.answer_measures import short_answer
from benchmarks.answers.squad import contains_gold
from benchmarks.reader.auc import auc
from ragcore.grounding.claims import sentence_spans
from ragcore.reading.model import WEIGHTS_DIR, Reader
from ragcore.reading.text import prose, reader_text
from training.reader.answered import asked_with

ROWS = Path(__file__).resolve().parents[1] / "answers" / "squad_local_rows"
DEFAULT = (ROWS / "official-dev-2026-11-28-run1.jsonl",
           ROWS / "calibration-whole-2026-11-28-run1.jsonl")
THRESHOLDS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def scored(rows: list[dict], reader: Reader) -> list[tuple[bool, float, float, bool]]:
    """(right, plain chance, answered chance, answerable) of each reply whose short answer a
    sentence holds."""
    out = []
    for row in rows:
        short = short_answer(row["answer"]).strip().rstrip(".")
        if not short:
            continue
        texts = []
        for passage in row["passages"]:
            spans = sentence_spans(passage, wrapped=True)
            for i, (a, b) in enumerate(spans):
                sentence = passage[a:b]
                if short.casefold() in sentence.casefold() and prose(sentence):
                    texts.append(reader_text(sentence, "", passage[slice(*spans[i - 1])]
                                             if i else ""))
        if not texts:
            continue
        right = bool(row["golds"]) and contains_gold(short, row["golds"])
        plain = max(reader.score(row["question"], texts))
        answered = max(reader.score(asked_with(row["question"], short), texts))
        out.append((right, plain, answered, bool(row["golds"])))
    return out


def table(name: str, found: list[tuple[bool, float, float, bool]]) -> str:
    right = [f for f in found if f[0]]
    wrong = [f for f in found if not f[0]]
    lines = [f"{name}: {len(right)} right and {len(wrong)} wrong short answers a sentence holds"]
    for label, others in (("wrong", wrong), ("wrong, answerable", [f for f in wrong if f[3]]),
                          ("unanswerable", [f for f in wrong if not f[3]])):
        lines.append(f"AUC right vs {label} ({len(others)}): plain "
                     f"{auc([f[1] for f in right], [f[1] for f in others]):.3f}, answered "
                     f"{auc([f[2] for f in right], [f[2] for f in others]):.3f}")
    lines += ["",
             "| chance at least | plain: right kept / wrong kept | answered: right / wrong |",
             "|---|---|---|"]
    for t in THRESHOLDS:
        lines.append(f"| {t} | {sum(f[1] >= t for f in right)} / {sum(f[1] >= t for f in wrong)}"
                     f" | {sum(f[2] >= t for f in right)} / {sum(f[2] >= t for f in wrong)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="*", default=list(DEFAULT))
    parser.add_argument("--weights", type=Path, default=WEIGHTS_DIR)
    args = parser.parse_args()
    reader = Reader(folder=args.weights, threads=1)
    for path in args.rows:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        print(table(path.name, scored(rows, reader)), "\n")


if __name__ == "__main__":
    main()
