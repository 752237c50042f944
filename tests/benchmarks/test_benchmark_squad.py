"""The SQuAD data of the answer benchmark is split as written down, and its measures score as the
official SQuAD 2.0 evaluation script does."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# benchmarks/ and training/ are folders of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from benchmarks.answers.squad import (  # noqa: E402
    contains_gold,
    dev_paragraphs,
    dev_questions,
    exact_match,
    heldout_paragraphs,
    heldout_questions,
    normalize_answer,
    token_f1,
)
from benchmarks.answers.squad_make import EXTRA, HELD_OUT, TRAINING  # noqa: E402
from benchmarks.answers.squad_samples import SHARED_WORDS, _runs  # noqa: E402
from training.answerer.squad import training_articles  # noqa: E402


@pytest.mark.parametrize(("text", "normal"), [
    ("The Eiffel Tower", "eiffel tower"),
    ("  an  Apple,  a pear. ", "apple pear"),
    ("Holmes's hat!", "holmess hat"),
    ("theatre anthem", "theatre anthem"),  # articles only as whole words
    ("", ""),
])
def test_normalize_answer_is_the_official_one(text, normal):
    assert normalize_answer(text) == normal


def test_exact_match_ignores_case_punctuation_and_articles_and_takes_the_best_gold():
    assert exact_match("the Eiffel tower.", ["Eiffel Tower"]) == 1.0
    assert exact_match("Eiffel", ["Eiffel Tower"]) == 0.0
    assert exact_match("1889", ["in 1889", "1889"]) == 1.0


def test_token_f1_is_the_harmonic_mean_of_token_precision_and_recall():
    # 2 of 4 predicted tokens are right (precision .5), both gold tokens found (recall 1)
    assert token_f1("the Eiffel Tower in Paris", ["Eiffel Tower"]) == pytest.approx(2 / 3)
    # tokens count with their multiplicity: "cat cat" against "cat" shares one
    assert token_f1("cat cat", ["cat"]) == pytest.approx(2 / 3)
    assert token_f1("dog", ["cat"]) == 0.0
    assert token_f1("Paris", ["Lyon", "in Paris", "Paris"]) == 1.0


def test_unanswerable_questions_score_only_an_empty_prediction():
    assert exact_match("", []) == 1.0 and token_f1("", []) == 1.0
    assert exact_match("1889", []) == 0.0 and token_f1("1889", []) == 0.0
    assert token_f1("", ["Eiffel Tower"]) == 0.0 and exact_match("", ["Eiffel Tower"]) == 0.0
    assert token_f1("a", ["Eiffel Tower"]) == 0.0  # normalizes to nothing: a no-answer


def test_contains_gold_finds_whole_normalized_words_only():
    assert contains_gold("It opened in 1889, in Paris.", ["1889"])
    assert contains_gold("**The Eiffel  Tower**", ["eiffel tower"])
    assert not contains_gold("It opened in 1889.", ["188"])
    assert not contains_gold("anything at all", [])


def test_the_held_out_sample_is_300_answerable_and_60_unanswerable_from_held_out_articles():
    questions = heldout_questions()
    paragraphs = {p["id"] for p in heldout_paragraphs()}
    assert sum(not q.is_impossible for q in questions) == 300
    assert sum(q.is_impossible for q in questions) == 60
    assert len({q.id for q in questions}) == 360
    assert {q.title for q in questions} <= set(HELD_OUT)
    assert all(q.paragraph in paragraphs for q in questions)
    assert all(bool(q.answers) != q.is_impossible for q in questions)
    assert all(len(set(q.answers)) == len(q.answers) for q in questions)


def test_no_held_out_article_is_a_training_article():
    titles = [a["title"] for a in training_articles()]
    assert titles == [*TRAINING, *EXTRA, ""]  # the samples: one untitled article
    assert not set(titles) & set(HELD_OUT)
    assert {p["title"].replace(" ", "_") for p in heldout_paragraphs()} == set(HELD_OUT)


def test_no_sampled_training_paragraph_comes_from_a_held_out_article():
    samples = training_articles()[-1]["paragraphs"]
    held = set().union(*(_runs(p["text"]) for p in heldout_paragraphs()))
    asked = {q.question for q in heldout_questions()}
    assert len(samples) > 4000 and SHARED_WORDS <= 12
    assert not any(_runs(p["context"]) & held for p in samples)
    assert not any(qa["question"] in asked for p in samples for qa in p["qas"])


def test_the_dev_questions_are_squads_dev_split_asked_of_no_training_text():
    # three Rhine paragraphs are among the training samples other projects published (with the
    # training split's): their questions are left out, their text stays in the index
    questions, paragraphs = dev_questions(), dev_paragraphs()
    assert (len(questions), sum(q.is_impossible for q in questions)) == (669, 306)
    assert {q.title for q in questions} == {"Normans", "Rhine"} and len(paragraphs) == 83
    assert all(bool(q.answers) != q.is_impossible for q in questions)
    trained = set().union(*(_runs(p["context"]) for a in training_articles()
                            for p in a["paragraphs"]))
    asked = {q.paragraph for q in questions}
    assert not any(_runs(p["text"]) & trained for p in paragraphs if p["id"] in asked)
    assert not {a["title"] for a in training_articles()} & {"Normans", "Rhine"}


def test_an_answer_the_reply_sets_aside_is_not_read_as_its_answer():
    shown = ("**The documents say:** \u201cThe GameCube version was released worldwide in "
             "December 2006.\u201d [1]\n\n*The model's answer, \u201c1 month\u201d, is not the "
             "answer this sentence gives, so it is not shown as the answer.*")
    assert not contains_gold(shown, ["a month"])
    assert contains_gold(shown, ["December 2006"])
