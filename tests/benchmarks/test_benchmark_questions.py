"""The answer benchmarks stay honest: the question set is well formed, every gold string really is
in the text ragcore's reader loads from the file it names, and the measures mean what they say."""

from __future__ import annotations

import json
import math
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

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


# --- the benchmarks' measures ----------------------------------------------------------------

def _answer(question: str, passages: list[str]) -> str:
    from ragcore import ExtractiveLLM, Node, ScoredNode, Synthesizer

    nodes = [ScoredNode(Node(text), 1.0) for text in passages]
    return Synthesizer(ExtractiveLLM()).synthesize(question, nodes).text


def test_the_answerers_own_ways_of_not_knowing_count_as_saying_so():
    from benchmarks.llm.bench_answers import says_unknown

    assert says_unknown(_answer("What is the walrus operator?", []))  # nothing retrieved
    assert says_unknown(_answer("What is the walrus operator?", ["Tides follow the moon."]))


def test_a_quoted_answer_is_not_read_as_not_knowing_even_when_the_quote_says_so():
    from benchmarks.llm.bench_answers import says_unknown

    answer = _answer("What does a 404 reply mean?",
                     ["A 404 reply means the server found nothing matching the Request-URI."])
    assert "found nothing matching" in answer  # the quote holds one of the phrases
    assert not says_unknown(answer)


def test_ranking_scores_follow_their_definitions():
    from benchmarks.retrieval.bench_retrieval import score_ranking

    golds = ("alpha beta", "gamma")
    chunks = ["nothing here", "x Alpha  Beta y", "more", "gamma and alpha beta"]
    scores = score_ranking(golds, chunks, relevant_total=2)
    ideal = 1 + 1 / math.log2(3)
    assert scores["nDCG@10"] == pytest.approx((1 / math.log2(3) + 1 / math.log2(5)) / ideal)
    assert scores["MRR@10"] == 0.5
    assert scores["recall@10"] == scores["recall@4"] == 1.0
    assert score_ranking(golds, chunks[:2], relevant_total=2)["recall@10"] == 0.5
    assert score_ranking(golds, ["no", "none"], relevant_total=0) == {
        "nDCG@10": 0.0, "recall@10": 0.0, "recall@4": 0.0, "MRR@10": 0.0}
