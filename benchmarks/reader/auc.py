"""The trained reader judged on SQuAD 2.0's official dev split (never trained or tuned on).

    python -m benchmarks.reader.auc [--weights FOLDER]

Each of the 669 dev questions (``squad/dev.jsonl``: Normans and Rhine) is read against the
sentences of its own paragraph, as the app reads a passage (``grounding.stating``: the
sentence, then the sentence before it). Two separations, each as an AUC (the chance that a
random positive scores above a random negative), beside the word rule they replace
(``grounding.located.asked_share``, the share of the question's words a sentence repeats):

- **the answer's sentence against the paragraph's others**, over the answerable questions (the
  answer's sentence: one holding a gold answer);
- **answerable against unanswerable questions**, by the paragraph's best sentence.

The first also within each question (its paragraph's sentences only, the mean over questions
whose paragraph has both kinds), and how often the best-scored sentence holds a gold answer: the
sentence the check would quote. Then the curve of the second: at each threshold on the best sentence's chance, the share of
unanswerable questions refused and of answerable ones wrongly refused.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from benchmarks.answers.squad import contains_gold, dev_paragraphs, dev_questions
from ragcore.grounding.claims import sentence_spans
from ragcore.grounding.located import asked_share
from ragcore.reading.model import WEIGHTS_DIR, Reader
from ragcore.reading.text import reader_text

THRESHOLDS = (0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7)


def auc(positives: list[float], negatives: list[float]) -> float:
    """The Mann-Whitney AUC: ties count half."""
    if not positives or not negatives:
        return float("nan")
    scores = np.asarray(positives + negatives)
    ranks = _ranks(scores)
    n_pos, n_neg = len(positives), len(negatives)
    return float((ranks[:n_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _ranks(values: np.ndarray) -> np.ndarray:
    order = values.argsort(kind="mergesort")
    ranks = np.empty(len(values))
    sorted_values = values[order]
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and sorted_values[j + 1] == sorted_values[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def measure(reader: Reader) -> dict:
    """Both AUCs for the reader and the word rule, and the reader's refusal curve."""
    texts = {p["id"]: p["text"] for p in dev_paragraphs()}
    rows = {"reader": ([], [], [], []), "words": ([], [], [], [])}
    within = {"reader": ([], []), "words": ([], [])}  # per question: its AUC, its best a gold's
    for question in dev_questions():
        paragraph = texts[question.paragraph]
        spans = sentence_spans(paragraph, wrapped=True)
        sentences = [paragraph[a:b] for a, b in spans]
        read = [reader_text(s, "", sentences[i - 1] if i else "") for i, s in enumerate(sentences)]
        scores = {"reader": reader.score(question.question, read),
                  "words": [asked_share(question.question, s) for s in sentences]}
        for name, values in scores.items():
            stating, others, answerable, unanswerable = rows[name]
            if not question.is_impossible:
                answerable.append(max(values))
                gold = [contains_gold(sentence, question.answers) for sentence in sentences]
                for holds, value in zip(gold, values):
                    (stating if holds else others).append(value)
                if any(gold) and not all(gold):
                    own_auc, first = within[name]
                    own_auc.append(auc([v for v, g in zip(values, gold) if g],
                                       [v for v, g in zip(values, gold) if not g]))
                    first.append(gold[int(np.argmax(values))])
            else:
                unanswerable.append(max(values))
    out = {name: {"sentence_auc": auc(s, o), "answerable_auc": auc(a, u),
                  "answerable": len(a), "unanswerable": len(u),
                  "question_auc": float(np.mean(within[name][0])),
                  "first": float(np.mean(within[name][1]))}
           for name, (s, o, a, u) in rows.items()}
    _, _, answerable, unanswerable = rows["reader"]
    out["curve"] = [(t, float(np.mean(np.asarray(unanswerable) < t)),
                     float(np.mean(np.asarray(answerable) < t))) for t in THRESHOLDS]
    return out


def table(result: dict) -> str:
    lines = ["| signal | answer's sentence vs the paragraph's others | the same, within each "
             "question (mean) | best sentence holds a gold answer | answerable vs unanswerable |",
             "|---|---|---|---|---|"]
    for name in ("reader", "words"):
        r = result[name]
        lines.append(f"| {name} | {r['sentence_auc']:.3f} | {r['question_auc']:.3f} | "
                     f"{r['first']:.1%} | {r['answerable_auc']:.3f} |")
    lines += ["", "| best sentence's chance below | unanswerable refused | answerable refused |",
              "|---|---|---|"]
    lines += [f"| {t} | {u:.1%} | {a:.1%} |" for t, u, a in result["curve"]]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--weights", type=Path, default=WEIGHTS_DIR)
    args = parser.parse_args()
    print(table(measure(Reader(folder=args.weights, threads=2))))


if __name__ == "__main__":
    main()
