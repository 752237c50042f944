"""The held-out SQuAD 2.0 files of ``squad/`` and the official SQuAD measures.

Loaders (the files are made by ``squad_make.py``; source, licence and split in
``squad/README.md``). The training files live apart, in ``training/answerer/data/``, loaded by
``training.answerer.squad``: nothing here reads them, and the training code never reads these.

- ``heldout_questions()``: the fixed sample of 300 answerable + 60 unanswerable questions of the
  3 held-out articles, as ``HeldOutQuestion``;
- ``heldout_paragraphs()``: every paragraph of the held-out articles (``id``, ``title``,
  ``text``), the documents of the held-out benchmark index.

Measures, as the official ``evaluate-v2.0.py`` computes them: answers are normalized (lower
case, punctuation removed, the articles a/an/the removed, whitespace collapsed); exact match
and token F1 take the best gold; a question without gold answers (unanswerable) has the one
gold "", so only an empty prediction scores on it. ``contains_gold`` is not official: whether a
longer text holds a gold answer once both are normalized.
"""

from __future__ import annotations

import gzip
import json
import re
import string
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

FOLDER = Path(__file__).resolve().parent / "squad"
_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b", re.UNICODE)


@dataclass(frozen=True, slots=True)
class HeldOutQuestion:
    """One held-out question; ``paragraph`` is the id of the paragraph it was asked about."""

    id: str
    title: str
    question: str
    answers: tuple[str, ...]  # distinct gold texts; empty when unanswerable
    paragraph: str
    is_impossible: bool


def heldout_questions(folder: Path = FOLDER) -> list[HeldOutQuestion]:
    """The held-out sample of ``heldout.jsonl``, in file order."""
    return [HeldOutQuestion(r["id"], r["title"], r["question"], tuple(r["answers"]),
                            r["paragraph"], bool(r["is_impossible"]))
            for r in _jsonl(folder / "heldout.jsonl")]


def heldout_paragraphs(folder: Path = FOLDER) -> list[dict]:
    """Every paragraph of the held-out articles: ``{"id", "title", "text"}``."""
    return _jsonl(folder / "heldout_paragraphs.jsonl")


def dev_questions(folder: Path = FOLDER) -> list[HeldOutQuestion]:
    """Every question of ``dev.jsonl`` (SQuAD 2.0's official dev split, its first two
    articles: ``squad/README.md``), in file order."""
    return [HeldOutQuestion(r["id"], r["title"], r["question"], tuple(r["answers"]),
                            r["paragraph"], bool(r["is_impossible"]))
            for r in _jsonl(folder / "dev.jsonl")]


def dev_paragraphs(folder: Path = FOLDER) -> list[dict]:
    """Every paragraph of the dev articles: ``{"id", "title", "text"}``."""
    return _jsonl(folder / "dev_paragraphs.jsonl")


def normalize_answer(text: str) -> str:
    """Lower case, no punctuation, no articles, single spaces (the official normalization)."""
    text = "".join(ch for ch in text.lower() if ch not in _PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def exact_match(prediction: str, golds: Sequence[str]) -> float:
    """1.0 when ``prediction`` equals a gold answer once both are normalized, else 0.0."""
    wanted = _golds(golds)
    return float(any(normalize_answer(prediction) == normalize_answer(g) for g in wanted))


def token_f1(prediction: str, golds: Sequence[str]) -> float:
    """The best F1 (0..1) of ``prediction``'s normalized tokens against a gold answer's."""
    return max(_f1(normalize_answer(prediction).split(), normalize_answer(g).split())
               for g in _golds(golds))


_TYPOGRAPHIC = str.maketrans({**{c: " " for c in "\u201c\u201d\u00ab\u00bb"},
                              **{c: "" for c in "\u2018\u2019"}})  # as ASCII ' is


# The note under a sentence shown instead of the model's answer quotes that answer as the one
# not given ("*The model's answer, “1 month”, is not the answer this sentence gives ...*"): a
# person reads the sentence as the answer, not the answer the note sets aside.
_SET_ASIDE = re.compile(r"^\*The model(?:'s answer,| answered) \u201c.*$", re.MULTILINE)


def as_read(shown: str) -> str:
    """``shown`` without the notes quoting a model's answer the reply sets aside."""
    return _SET_ASIDE.sub("", shown)


def contains_gold(text: str, golds: Sequence[str]) -> bool:
    """Whether ``text`` holds a (non-empty) gold answer once both are normalized, an answer it
    sets aside left out (``as_read``); the curly quotes around a quoted sentence are read as
    quotes (the official normalization strips ASCII punctuation only, so “Zelda ...” did not
    hold "Zelda")."""
    haystack = f" {normalize_answer(as_read(text).translate(_TYPOGRAPHIC))} "
    return any(f" {n} " in haystack for n in map(normalize_answer, golds) if n)


def _f1(predicted: list[str], gold: list[str]) -> float:
    if not predicted or not gold:  # a no-answer on either side scores only against no-answer
        return float(predicted == gold)
    same = sum((Counter(predicted) & Counter(gold)).values())
    if not same:
        return 0.0
    precision, recall = same / len(predicted), same / len(gold)
    return 2 * precision * recall / (precision + recall)


def _golds(golds: Sequence[str]) -> list[str]:
    """The gold answers as the official script scores them: [""] when none is non-empty."""
    kept = [g for g in golds if normalize_answer(g)]
    return kept or [""]


def _read(path: Path) -> str:
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: make it as squad/README.md says "
                                "(python -m benchmarks.answers.squad_make ...)")
    data = path.read_bytes()
    return (gzip.decompress(data) if path.suffix == ".gz" else data).decode("utf-8")


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in _read(path).splitlines() if line.strip()]
