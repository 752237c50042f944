"""The span reader (``training/reader/span.py``) as a check of the packaged model's short answers.

    python -m benchmarks.reader.span_check [--weights FOLDER] [rows.jsonl ...]

On recorded replies (``squad_local`` rows: the question, the passages the model read, its
answer), the span reader reads the question with each passage and gives, per reply:

- ``own``: its own answer (the best span over the passages) and whether it holds a gold answer:
  how good a reader it is by itself;
- ``agree``: how much of the model's short answer its best span says (SQuAD's word F1);
- ``answer``: its score for the model's short answer where a passage holds it (the span's start
  and end logits) above its score for "no answer" (the [CLS] pair): the reader given the answer;
- ``answerable``: its best span's score above "no answer" (whether the passages answer at all).

Each signal's AUC keeps the right short answers above the wrong ones (every answer to an
unanswerable question is wrong), beside the sentence reader's chance for the best sentence
holding the short answer (``checked.py``'s plain score). Judged only: the rows are SQuAD's
held-out articles and its official dev split, never trained on.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks.answers.answer_measures import short_answer
from benchmarks.answers.squad import contains_gold, token_f1
from benchmarks.reader.auc import auc
from benchmarks.reader.checked import ROWS
from benchmarks.reader.confidence import rank_mean, reader_chance, right_auc
from benchmarks.reader.spans import FOLDER, SpanReader

DEFAULT = (ROWS / "heldout-2026-11-27-run9.jsonl", ROWS / "official-dev-2026-11-28-run1.jsonl")


class ExportedSpans:
    """The span reader as the check would run it (``spans.py``: int8, read in windows)."""

    def __init__(self, folder: Path) -> None:
        self.reader = SpanReader(folder=folder)

    def read(self, question: str, passage: str, short: str) -> dict:
        """The best span of ``passage`` (text, score above "no answer") and the score of
        ``short`` where the passage holds it."""
        best = self.reader.best(question, passage)
        answer = None
        at = passage.casefold().find(short.casefold()) if short else -1
        while at >= 0:
            score = self.reader.score(question, passage, at, at + len(short))
            if score is not None:
                answer = score if answer is None else max(answer, score)
            at = passage.casefold().find(short.casefold(), at + 1)
        return {"said": "" if best is None else passage[best.start:best.end],
                "best": -1e9 if best is None else best.score, "answer": answer}


def scored(rows: list[dict], reader: ExportedSpans, sentences=None) -> list[dict]:
    """Each reply's signals; with ``sentences`` (the sentence reader), its chance for the best
    sentence holding the short answer too."""
    out = []
    for row in rows:
        short = short_answer(row["answer"] or "").strip().rstrip(".")
        reads = [reader.read(row["question"], p, short) for p in row["passages"] if p.strip()]
        if not reads:
            continue
        top = max(reads, key=lambda r: r["best"])
        answers = [r["answer"] for r in reads if r["answer"] is not None]
        out.append({
            "id": row["id"], "answerable": bool(row["golds"]), "short": short,
            "right": bool(row["golds"]) and bool(short) and contains_gold(short, row["golds"]),
            "own": top["said"], "own_right": bool(row["golds"]) and contains_gold(
                top["said"], row["golds"]),
            "agree": max(token_f1(r["said"], [short]) for r in reads) if short else 0.0,
            "answer": max(answers) if answers else None, "answerable_score": top["best"],
            "margin": max(answers) - top["best"] if answers else None,
            "reader": None if sentences is None else reader_chance(sentences, row, short)})
    return out


def report(name: str, rows: list[dict]) -> str:
    answerable = [r for r in rows if r["answerable"]]
    short = [r for r in rows if r["short"]]
    held = [r for r in short if r["answer"] is not None]
    unanswerable = [r["answerable_score"] for r in rows if not r["answerable"]]
    lines = [f"{name}: {len(rows)} replies, {len(answerable)} answerable",
             f"span reader's own best span holds a gold answer: "
             f"{sum(r['own_right'] for r in answerable)}/{len(answerable)}; the model's short "
             f"answer: {sum(r['right'] for r in answerable)}/{len(answerable)}",
             f"answerable vs unanswerable by its best span above 'no answer': AUC "
             f"{auc([r['answerable_score'] for r in answerable], unanswerable):.3f}",
             f"short answers {len(short)}: right {sum(r['right'] for r in short)}, "
             f"wrong {sum(not r['right'] for r in short)}",
             f"AUC right vs wrong, agree (F1 with its best span): {right_auc(short, 'agree'):.3f}"]
    if held:
        right = sum(r["right"] for r in held)
        lines.append(f"of the {len(held)} a passage holds ({right} right, {len(held) - right} "
                     f"wrong): AUC answer score {right_auc(held, 'answer'):.3f}, its margin "
                    f"below the reader's own best phrase {right_auc(held, 'margin'):.3f}")
        read = [r for r in held if r["reader"] is not None]
        if read:
            both = [{**r, "both": b} for r, b in zip(read, rank_mean(read, ("answer", "reader")))]
            lines.append(f"  with the sentence reader ({len(read)}): reader alone "
                         f"{right_auc(read, 'reader'):.3f}, both (mean of ranks) "
                         f"{right_auc(both, 'both'):.3f}")
        for t in (-4, -2, 0, 2, 4):
            kept = [r for r in held if r["answer"] >= t]
            lines.append(f"  answer score >= {t}: right kept {sum(r['right'] for r in kept)}, "
                         f"wrong kept {sum(not r['right'] for r in kept)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rows", type=Path, nargs="*", default=list(DEFAULT))
    parser.add_argument("--weights", type=Path, default=FOLDER,
                        help="the folder of span-int8.onnx and its recipe")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    reader = ExportedSpans(args.weights)
    from ragcore.reading.model import Reader

    sentences = Reader(threads=1)
    kept = []
    for path in args.rows:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        found = scored(rows, reader, sentences)
        kept += found
        print(report(path.name, found), "\n", flush=True)
    if args.out:
        args.out.write_text("".join(json.dumps(r) + "\n" for r in kept))


if __name__ == "__main__":
    main()
