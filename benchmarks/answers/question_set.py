"""The question set of issue 9: questions over the shared corpus, each with its gold strings.

Each line of ``questions.jsonl`` is one question, written by reading the documents:

    id          "q01", "q02" ...
    collection  the corpus subfolder it is about ("state_of_the_union", "rust_book" ...)
    kind        single (one fact), multi (two facts, maybe from two places), list (an
                enumeration), none (plausible, but the corpus does not answer it)
    question    the text asked
    gold        exact sentences, or distinctive exact substrings, of the text ragcore's reader
                loads from the files; empty for "none"
    files       the files holding the gold, relative to the collection folder; empty for "none"

A gold string is *found* in a text when it occurs there once both are whitespace-collapsed and
case-folded, so neither a reader's line breaks nor an answer's layout decides a score.
``tests/test_benchmark_questions.py`` checks that every gold string is found in its files.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, TypeVar

T = TypeVar("T", bound=Any)

KINDS = ("single", "multi", "list", "none")
QUESTIONS_FILE = Path(__file__).with_name("questions.jsonl")
_FIELDS = {"id", "collection", "kind", "question", "gold", "files"}


@dataclass(frozen=True, slots=True)
class Question:
    """One benchmark question with the exact strings a good answer quotes."""

    id: str
    collection: str
    kind: str
    question: str
    gold: tuple[str, ...]
    files: tuple[str, ...]

    @property
    def answerable(self) -> bool:
        """False for "none" questions, whose right answer is that the documents do not say."""
        return self.kind != "none"

    def paths(self, corpus: Path) -> list[Path]:
        """The named files inside ``corpus``."""
        return [corpus / self.collection / name for name in self.files]


def normalize(text: str) -> str:
    """``text`` with runs of whitespace made one space, case-folded."""
    return " ".join(text.split()).casefold()


def gold_found(golds: Iterable[str], text: str) -> list[bool]:
    """For each gold string, whether it occurs in ``text`` (whitespace- and case-normalised)."""
    haystack = normalize(text)
    return [normalize(gold) in haystack for gold in golds]


def load_questions(path: Path = QUESTIONS_FILE) -> list[Question]:
    """The questions of ``path``; ValueError naming the line and the problem if one is malformed."""
    return read_questions(path, _question)


def read_questions(path: Path, make: Callable[[object, str], T]) -> list[T]:
    """Each JSON line of ``path`` made into a question by ``make(record, "file:line")`` (which
    raises ValueError for a malformed one); ids must be unique, the file must hold one."""
    questions: list[T] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: not JSON ({exc.msg}): fix the line") from exc
        question = make(record, where)
        if question.id in seen:
            raise ValueError(f"{where}: id {question.id!r} is used twice: give it a new id")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise ValueError(f"{path} holds no questions: add one JSON object a line")
    return questions


def _question(record: object, where: str) -> Question:
    if not isinstance(record, dict) or set(record) != _FIELDS:
        keys = sorted(record) if isinstance(record, dict) else type(record).__name__
        raise ValueError(f"{where}: expected exactly the fields {sorted(_FIELDS)}, got {keys}")
    for name in ("id", "collection", "kind", "question"):
        if not isinstance(record[name], str) or not record[name].strip():
            raise ValueError(f"{where}: {name} must be a non-empty string, got {record[name]!r}")
    for name in ("gold", "files"):
        value = record[name]
        if not isinstance(value, list) or not all(isinstance(s, str) and s.strip() for s in value):
            raise ValueError(f"{where}: {name} must be a list of non-empty strings, got {value!r}")
    kind = record["kind"]
    if kind not in KINDS:
        raise ValueError(f"{where}: kind {kind!r} is not one of {', '.join(KINDS)}")
    if (kind == "none") != (not record["gold"]) or bool(record["gold"]) != bool(record["files"]):
        needs = ("empty gold and files" if kind == "none"
                 else "gold strings and the files holding them")
        raise ValueError(f"{where}: a {kind!r} question needs {needs}")
    return Question(record["id"], record["collection"], kind, record["question"],
                    tuple(record["gold"]), tuple(record["files"]))
