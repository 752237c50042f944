"""A question answered yes or no is answered "Yes" or "No" with the sentence that decides it
(issue 64: "Is ... a ...?" was shown a bold echo of the question's term with two markers)."""

from __future__ import annotations

import pytest

from ragcore.grounding.answer_type import asks_yes_or_no
from ragcore.present.markers import mark_listing
from ragcore.present.sources import answer_sources
from ragcore.types import Node, ScoredNode

CHUBBY = ("We describe our experiences with the Chubby lock service, which is intended to "
          "provide coarse-grained locking as well as reliable storage for a loosely-coupled "
          "distributed system. Chubby is not optimized for high performance; its clients use "
          "caching instead.")
MAPREDUCE = ("MapReduce is a programming model and an associated implementation for processing "
             "and generating large data sets.")


def shown(answer: str, question: str) -> str:
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7)
             for i, t in enumerate([MAPREDUCE, CHUBBY])]
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    return mark_listing(answer, listing)[0]


@pytest.mark.parametrize("question, expected", [
    ("Is Chubby a lock service?", True), ("Does MapReduce process large data sets?", True),
    ("Is the lock delay one minute or five?", False), ("What is Chubby?", False),
    ("Chubby is a lock service?", False)])
def test_which_questions_are_answered_yes_or_no(question, expected):
    assert asks_yes_or_no(question) is expected


def test_a_yes_or_no_question_is_answered_with_the_sentence_that_decides_it():
    text = shown("**Chubby lock service**. Chubby is a lock service [1].",
                 "Is Chubby a lock service?")
    assert text.startswith("**Yes**. \u201cWe describe our experiences with the Chubby lock "
                           "service, which")
    assert text.count("[1]") == 1 and "**Chubby lock service**" not in text


def test_a_negated_sentence_answers_no_and_says_where_the_model_differs():
    text = shown("**Yes**. Chubby is optimized for high performance.",
                 "Is Chubby optimized for high performance?")
    assert text.startswith("**No**. \u201cChubby is not optimized for high performance;")
    assert "The model answered \u201cYes\u201d; this sentence says otherwise." in text


def test_the_model_agreeing_is_shown_plainly():
    text = shown("**No**.", "Is Chubby optimized for high performance?")
    assert text.startswith("**No**. \u201cChubby is not optimized") and "model answered" not in text


def test_without_a_sentence_stating_the_whole_question_the_answer_is_checked_as_before():
    text = shown("**Yes**. Chubby runs on five replicas.", "Does Chubby run on five replicas?")
    assert not text.startswith(("**Yes**. \u201c", "**No**. \u201c"))
