"""The unseen question set stays honest: it is well formed and mixed as promised, every gold
string and stating sentence is in the text ragcore's reader loads, the questions the documents
don't answer really go unanswered there, and the halves are the ones the seed deals."""

from __future__ import annotations

import json
import sys
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.answers.grounded_set import normalize  # noqa: E402
from benchmarks.unseen.unseen_set import (  # noqa: E402
    DOCS,
    KINDS,
    QUESTIONS_FILE,
    load_questions,
    split,
)
from ragcore import load_file  # noqa: E402

QUESTIONS = load_questions()

# For each question the documents don't answer, strings that would answer it: none may occur.
ABSENT = {
    "u012": ["implemented b-money", "never implemented"],
    "u024": ["50 coins", "50 bitcoins", "bitcoins", "reward of"],
    "u025": ["21 million", "21,000,000", "million coins"],
    "u026": ["genesis", "january 3", "2009"],
    "u027": ["secp256k1", "elliptic", "ecdsa", "curve"],
    "u028": ["2016 blocks", "two weeks", "every 2016"],
    "u029": ["c++", "client was written", "written in"],
    "u038": ["1.1.0", "1.0.0", "added in", "version 1"],
    "u050": ["1.1.0", "1.0.0", "v1.", "version 1"],
    "u051": ["depth", "maximum nesting", "nesting limit"],
    "u052": ["python", "tomllib", "toml-test", "reference parser"],
    "u053": ["2013", "first released", "released in"],
    "u054": ["maximum length", "key length", "characters long"],
    "u055": ["line length", "columns", "characters per line"],
    "u056": ["cargo.toml is", "pip", "poetry", "manifest", "package manager"],
    "u064": ["released", "2017", "release date"],
    "u079": ["thread", "-j", "--threads"],
    "u080": ["rust version", "msrv", "rustc 1.", "minimum supported"],
    "u081": ["brew install", "homebrew/"],
    "u082": ["max-columns defaults", "default is 150", "by default, ripgrep limits"],
    "u083": ["andrew", "gallant"],
    "u084": ["pcre", "-p/", "--engine"],
    "u085": ["times faster", "x faster", "benchmark"],
    "u097": ["selivanov", "pep 492 was written", "authored by"],
    "u109": ["per second", "pages/s", "pages a second"],
    "u110": ["limit=", "pool size", "100 connections"],
    "u111": ["aiohttp 0.", "aiohttp 1.", "aiohttp version", "version of aiohttp"],
    "u112": ["goroutine", "golang"],
    "u113": ["timeout", "seconds"],
    "u114": ["break-even", "overtake", "connections, asyncio"],
}


@lru_cache(maxsize=None)
def _collection_text(collection: str) -> str:
    return " ".join(normalize(doc.text) for path in sorted((DOCS / collection).iterdir())
                    for doc in load_file(path))


def _file_text(question) -> str:
    return " ".join(normalize(doc.text) for path in question.paths() for doc in load_file(path))


def test_the_set_is_big_and_mixed_as_promised():
    kinds = Counter(q.kind for q in QUESTIONS)
    assert len(QUESTIONS) >= 88 and set(kinds) == set(KINDS)
    assert sum(not q.answerable for q in QUESTIONS) >= len(QUESTIONS) / 4
    assert kinds["followup"] >= 8
    assert [q.id for q in QUESTIONS] == [f"u{n:03d}" for n in range(1, len(QUESTIONS) + 1)]
    for collection in {q.collection for q in QUESTIONS}:
        own = Counter(q.kind for q in QUESTIONS if q.collection == collection)
        assert own["summary"] == 1 and own["unanswerable"] >= 5 and own["followup"] >= 2


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q.answerable], ids=lambda q: q.id)
def test_gold_and_sentence_are_in_the_loaded_text(question):
    text = _file_text(question)
    assert [g for g in question.gold if normalize(g) not in text] == []
    if question.kind != "summary":  # a summary has no one sentence
        assert question.sentence and normalize(question.sentence) in text


@pytest.mark.parametrize("question", [q for q in QUESTIONS if not q.answerable],
                         ids=lambda q: q.id)
def test_the_documents_do_not_answer_the_unanswerable_ones(question):
    text = _collection_text(question.collection)
    assert question.id in ABSENT
    assert [s for s in ABSENT[question.id] if normalize(s) in text] == []
    assert not question.sentence or normalize(question.sentence) in text


def test_a_follow_up_continues_an_earlier_question_of_its_collection_and_half():
    by_id = {q.id: q for q in QUESTIONS}
    for q in QUESTIONS:
        if q.follows:
            first = by_id[q.follows]
            assert first.id < q.id and first.kind != "followup"
            assert (first.collection, first.half) == (q.collection, q.half)


def test_the_halves_are_the_ones_the_seed_deals_and_even():
    rows = [json.loads(line) for line in QUESTIONS_FILE.read_text(encoding="utf-8").splitlines()]
    assert split(rows) == {row["id"]: row["half"] for row in rows}
    halves = Counter(q.half for q in QUESTIONS)
    assert abs(halves["tune"] - halves["test"]) <= 2
    unanswered = Counter(q.half for q in QUESTIONS if not q.answerable)
    assert abs(unanswered["tune"] - unanswered["test"]) <= 1
