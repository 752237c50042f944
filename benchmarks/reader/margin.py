"""The reader's chance beside the paragraph's others: a combination fitted on training questions.

    python -m benchmarks.reader.margin [--questions 2500]

The check reads the reader's chance for each sentence alone (``grounding.stating``). How far a
sentence stands above the others of its paragraph is a second signal: here a logistic
regression over the reader's logit, its margin over the paragraph's best other sentence, the
word share (``located.asked_share``) and its margin, fitted on SQuAD *training* questions
(``training.answerer.squad``, a seeded sample) and judged on the official dev split (never
fitted on), as ``auc.py`` judges the reader: the answer's sentence against the paragraph's
others, and answerable against unanswerable questions by the best sentence. Measured, not used
by the check (``README.md``, sixth session).
"""

from __future__ import annotations

import argparse
import math
import random

import numpy as np

from benchmarks.answers.squad import contains_gold, dev_paragraphs, dev_questions
from benchmarks.reader.auc import auc
from ragcore.grounding.claims import sentence_spans
from ragcore.grounding.located import asked_share
from ragcore.reading.model import WEIGHTS_DIR, Reader
from ragcore.reading.text import reader_text
from training.answerer.squad import training_articles

SEED = 7


def rows(items: list[tuple[str, str, list[str], bool]], reader: Reader) -> list[dict]:
    """Each question's sentences read: the reader's logits, the word shares, which hold gold."""
    out = []
    for question, paragraph, golds, impossible in items:
        sentences = [paragraph[a:b] for a, b in sentence_spans(paragraph, wrapped=True)]
        read = [reader_text(s, "", sentences[i - 1] if i else "") for i, s in enumerate(sentences)]
        chances = reader.score(question, read)
        out.append({"impossible": impossible,
                    "gold": [bool(golds) and contains_gold(s, golds) for s in sentences],
                    "logit": [math.log(max(c, 1e-5) / max(1 - c, 1e-5)) for c in chances],
                    "share": [asked_share(question, s) for s in sentences]})
    return out


def features(row: dict, i: int) -> list[float]:
    """The sentence ``i``'s logit and share, and each one's margin over the paragraph's best
    other sentence."""
    def margin(values: list[float]) -> float:
        others = [v for j, v in enumerate(values) if j != i]
        return values[i] - max(others) if others else 0.0
    return [row["logit"][i], row["share"][i], margin(row["logit"]), margin(row["share"])]


def sentences(rows_: list[dict]) -> tuple[np.ndarray, np.ndarray]:
    pairs = [(features(r, i), g) for r in rows_ if not r["impossible"] and any(r["gold"])
             for i, g in enumerate(r["gold"])]
    return np.array([p for p, _ in pairs]), np.array([float(g) for _, g in pairs])


def fit(x: np.ndarray, y: np.ndarray, l2: float = 1e-2, steps: int = 50):
    """A logistic regression by Newton's steps on standardized features; its scoring function."""
    mean, spread = x.mean(0), x.std(0) + 1e-9
    z = np.c_[(x - mean) / spread, np.ones(len(x))]
    w = np.zeros(z.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-z @ w))
        hessian = (z.T * (p * (1 - p))) @ z / len(y) + l2 * np.eye(len(w))
        w -= np.linalg.solve(hessian, z.T @ (p - y) / len(y) + l2 * w)
    return lambda x2: np.c_[(x2 - mean) / spread, np.ones(len(x2))] @ w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=2500)
    args = parser.parse_args()
    reader = Reader(folder=WEIGHTS_DIR, threads=2)
    train = [(qa["question"], p["context"], [a["text"] for a in qa.get("answers", [])],
              bool(qa.get("is_impossible"))) for article in training_articles()
             for p in article["paragraphs"] for qa in p["qas"]]
    random.Random(SEED).shuffle(train)
    texts = {p["id"]: p["text"] for p in dev_paragraphs()}
    dev = [(q.question, texts[q.paragraph], list(q.answers), q.is_impossible)
           for q in dev_questions()]
    fitted, judged = rows(train[:args.questions], reader), rows(dev, reader)
    score = fit(*sentences(fitted))
    x, y = sentences(judged)
    judged = [r for r in judged if r["gold"]]
    answerable = [not r["impossible"] for r in judged]
    print("| signal | answer's sentence vs the paragraph's others | answerable vs unanswerable, "
          "by the best sentence |\n|---|---|---|")
    for name, values, best in (
            ("the reader alone", x[:, 0], [max(r["logit"]) for r in judged]),
            ("the reader with its margins", score(x),
             [float(max(score(np.array([features(r, i) for i in range(len(r["gold"]))]))))
              for r in judged])):
        sentence_auc = auc(list(values[y == 1]), list(values[y == 0]))
        question_auc = auc([b for b, a in zip(best, answerable) if a],
                           [b for b, a in zip(best, answerable) if not a])
        print(f"| {name} | {sentence_auc:.3f} | {question_auc:.3f} |")


if __name__ == "__main__":
    main()
