"""Make ``training/answerer/data/train_samples.json.gz``: samples of SQuAD's training split
found as paragraphs.

    python -m benchmarks.answers.squad_samples path/to/folder

The folder holds the four public files named in ``training/answerer/README.md`` (samples of SQuAD's
training split kept by other projects, by paragraph and question, without article titles). Their
questions are merged, one per (paragraph, question) pair, and every paragraph that is already
one of ours (``train.json``, ``train_extra.json``) or comes from a held-out article is left out:
a paragraph equal to a held-out one, or sharing any run of ``SHARED_WORDS`` words with one, is
dropped, and so is a question asked word for word in the held-out sample. What remains is
written as one untitled SQuAD 1.1 article (all its questions are answerable).
"""

from __future__ import annotations

import csv
import gzip
import json
import sys
from pathlib import Path
from typing import Iterator

from training.answerer.squad import DATA  # it reads both sides to keep them apart

FOLDER = Path(__file__).resolve().parent / "squad"
OUT = DATA / "train_samples.json.gz"
SHARED_WORDS = 12
SPLINTER = "ednussi__splinter__finetuning_squad_baseline"
FLAN = "EmptyCityJK__flan-response-evaluator__data_squad_{}.json"
TNLP = "chanys__tnlp__data_squad_train.jsonl"
GALILEO = "rungalileo__prompt_optimization_datasets__squad_train.csv"


def found(folder: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(paragraph, question, answers) of each source file, as each file stores them."""
    for path in sorted((folder / SPLINTER).glob("squad-train-seed-*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:  # a header line first
            row = json.loads(line)
            for qa in row["qas"]:
                yield row["context"], qa["question"], qa["answers"]
    for part in ("train", "valid", "test"):  # that project's own split of training paragraphs
        for row in json.loads((folder / FLAN.format(part)).read_text(encoding="utf-8")):
            for qa in row["qas"]:
                yield row["context"], qa["question"], [qa["answer"]]
    for line in (folder / TNLP).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        yield row["passage"], row["query"], [row["answer"]]
    with (folder / GALILEO).open(encoding="utf-8", newline="") as f:
        for row in csv.DictReader(f):
            yield row["context"], row["question"], [row["answer"]]


def _runs(text: str) -> set[tuple[str, ...]]:
    words = text.casefold().split()
    return {tuple(words[k:k + SHARED_WORDS]) for k in range(len(words) - SHARED_WORDS + 1)}


def make(folder: Path) -> dict:
    ours = {p["context"] for name in ("train.json", "train_extra.json")
            for a in json.loads((DATA / name).read_text(encoding="utf-8"))["data"]
            for p in a["paragraphs"]}
    held = [json.loads(line)["text"] for line in
            (FOLDER / "heldout_paragraphs.jsonl").read_text(encoding="utf-8").splitlines()]
    held_runs = set().union(*map(_runs, held))
    asked = {json.loads(line)["question"] for line in
             (FOLDER / "heldout.jsonl").read_text(encoding="utf-8").splitlines()}
    paragraphs: dict[str, dict[str, list[str]]] = {}
    for context, question, answers in found(folder):
        if context in ours or context in held or question in asked or _runs(context) & held_runs:
            continue
        golds = [a for a in answers if a and a in context]
        if golds:
            paragraphs.setdefault(context, {}).setdefault(question, golds)
    out = [{"context": context, "qas": [
        {"id": f"sample-{p}-{q}", "question": question,
         "answers": [{"text": a, "answer_start": context.index(a)} for a in golds]}
        for q, (question, golds) in enumerate(qas.items())]}
        for p, (context, qas) in enumerate(paragraphs.items())]
    return {"version": "1.1", "data": [{"title": "", "paragraphs": out}]}


if __name__ == "__main__":
    data = make(Path(sys.argv[1]))
    OUT.write_bytes(gzip.compress(json.dumps(data, ensure_ascii=False).encode("utf-8"), mtime=0))
    paragraphs = data["data"][0]["paragraphs"]
    print(f"{OUT}: {len(paragraphs)} paragraphs, "
          f"{sum(len(p['qas']) for p in paragraphs)} questions")
