"""The answer benchmark's question set stays honest: well formed, and every gold string really is
in the text ragcore's reader loads from the file the question names (no model involved)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.answers.question_set import (  # noqa: E402
    KINDS,
    gold_found,
    load_questions,
    normalize,
)
from ragcore import load_file  # noqa: E402

QUESTIONS = load_questions()


@lru_cache(maxsize=None)
def _loaded_texts(path: Path) -> tuple[str, ...]:
    """The text of each Document the reader makes of ``path`` (one per PDF page)."""
    return tuple(doc.text for doc in load_file(path))


def test_the_set_has_enough_questions_of_every_kind():
    kinds = Counter(q.kind for q in QUESTIONS)
    assert len(QUESTIONS) >= 60
    assert kinds["single"] >= 25 and kinds["multi"] >= 8
    assert kinds["list"] >= 8 and kinds["none"] >= 10
    assert set(kinds) == set(KINDS)
    assert len({q.collection for q in QUESTIONS}) >= 7  # every collection of the corpus


def test_multi_questions_have_a_gold_string_for_each_part():
    assert all(len(q.gold) >= 2 for q in QUESTIONS if q.kind == "multi")


def _answerable() -> list:
    """One case per answerable question; reading PDFs is slow (about 20 s for the six NIST
    PDFs), so the questions about them are checked with the slow tests."""
    return [
        pytest.param(q, id=q.id,
                     marks=[pytest.mark.slow] if any(f.endswith(".pdf") for f in q.files) else [])
        for q in QUESTIONS if q.answerable
    ]


@pytest.mark.parametrize("question", _answerable())
def test_gold_strings_occur_in_the_text_the_reader_loads(corpus_dir, question):
    per_file = {}
    for path in question.paths(corpus_dir):
        assert path.is_file(), f"{path} does not exist"
        # A gold string must sit inside one Document (a PDF page), where a chunk can hold it.
        per_file[path.name] = [any(hits) for hits in
                               zip(*(gold_found(question.gold, t) for t in _loaded_texts(path)))]
    missing = [g for i, g in enumerate(question.gold) if not any(h[i] for h in per_file.values())]
    assert not missing, f"{question.id}: not in {list(per_file)}: {missing}"
    idle = [name for name, hits in per_file.items() if not any(hits)]
    assert not idle, f"{question.id} names {idle}, which hold none of its gold strings"


def test_gold_matching_ignores_layout_and_case_but_not_words():
    assert gold_found(["Use 4 spaces per\n   indentation level."],
                      "PEP 8: use 4  spaces per indentation LEVEL.") == [True]
    assert gold_found(["Use 4 spaces per indentation level."], "Use 8 spaces per level.") == [False]
    assert normalize("  A\tb\n\nC ") == "a b c"


def _write(tmp_path: Path, **fields) -> Path:
    record = {"id": "q1", "collection": "rfcs", "kind": "single", "question": "What is 404?",
              "gold": ["Not Found"], "files": ["rfc2616.txt"], **fields}
    path = tmp_path / "questions.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"kind": "guess"}, "kind 'guess' is not one of"),
        ({"kind": "none"}, "needs empty gold and files"),
        ({"gold": []}, "needs gold strings"),
        ({"files": []}, "needs gold strings and the files"),
        ({"gold": ["  "]}, "gold must be a list of non-empty strings"),
        ({"question": ""}, "question must be a non-empty string"),
        ({"extra": 1}, "expected exactly the fields"),
    ],
)
def test_a_malformed_question_is_rejected_with_its_line(tmp_path, fields, message):
    path = _write(tmp_path, **fields)
    with pytest.raises(ValueError, match=message) as info:
        load_questions(path)
    assert f"{path}:1" in str(info.value)


def test_a_repeated_id_is_rejected(tmp_path):
    path = _write(tmp_path)
    path.write_text(path.read_text() * 2, encoding="utf-8")
    with pytest.raises(ValueError, match="id 'q1' is used twice"):
        load_questions(path)
