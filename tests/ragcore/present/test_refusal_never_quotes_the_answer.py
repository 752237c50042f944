"""A refusal never quotes the answer: when a passage sentence holds the short answer the model
wrote and states what was asked, that is support, shown; "The documents don't say" is never
followed by a sentence holding the draft's own answer (issue 64: the Chubby grace period)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ragcore.grounding.stating import reader_available
from ragcore.grounding.text import content_stems
from ragcore.present.grounded import NEAREST_LEAD
from ragcore.present.markers import mark_listing
from ragcore.present.sources import answer_sources
from ragcore.present.support import NEAREST
from ragcore.types import Node, ScoredNode

CHUBBY = ("Chubby's client library keeps a lease with the master. If a client's local lease "
          "timeout expires, it becomes unsure whether the master has terminated its session. "
          "The client empties and disables its cache. The client waits a further interval "
          "called the grace period, 45s by default. If the client and master manage to "
          "exchange a KeepAlive before the end of the client's grace period, the client "
          "enables its cache once more.")
MAPREDUCE = ("The MapReduce library in the user program first splits the input files into M "
             "pieces of typically 16 megabytes to 64 megabytes per piece.")
ROWS = (Path(__file__).resolve().parents[3] / "benchmarks" / "answers" / "squad_local_rows"
        / "calibration-whole-2026-11-28-run1.jsonl")
pytestmark = pytest.mark.skipif(not reader_available(), reason="the reader's weights")


def shown(passages: list[str], answer: str, question: str) -> str:
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate(passages)]
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    return mark_listing(answer, listing)[0]


def quotes_its_own_answer(text: str, answer: str, question: str = "") -> bool:
    """Whether ``text`` refuses and then quotes, as nearest, a sentence holding the bold
    short answer of ``answer``: its words, or its content words as the check reads them
    ("45 seconds" in "45s by default"); a bold that only gives back the question's words
    ("**Wii**." for "What does Wii mean?") answers nothing."""
    bold = re.search(r"\*\*(.+?)\*\*", answer)
    if not text.startswith(("The documents don't", "Not found")) or NEAREST_LEAD not in text:
        return False
    quote = re.sub(r"\[\d+\]", "", text.split(NEAREST_LEAD, 1)[1])  # its citation mark aside
    stems = set(content_stems(bold[1])) if bold else set()
    if stems and stems <= set(content_stems(question)):
        return False
    return bold is not None and (_words(bold[1]) in _words(quote)
                                 or bool(stems) and stems <= set(content_stems(quote)))


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", text.casefold())) + " "


def test_the_grace_period_is_shown_with_the_sentence_that_states_it():
    text = shown([MAPREDUCE, CHUBBY], "**45 seconds**.",
                 "How long is the grace period of a Chubby client by default?")
    assert not text.startswith("The documents don't")
    assert text.startswith("**45 seconds**. \u201cThe client waits a further interval called "
                           "the grace period, 45s by default.\u201d [1]")


def test_a_sentence_answer_naming_what_the_question_names_is_shown_too():
    # the stating sentence does not repeat "Chubby": the question's name, said by the sentence
    # before it; the answer's own fact, "45 seconds", is what the sentence must hold ("45s")
    question = "How long is the grace period of a Chubby client by default?"
    answer = "The grace period of a Chubby client is **45 seconds** by default."
    text = shown([MAPREDUCE, CHUBBY], answer, question)
    assert not quotes_its_own_answer(text, answer), text
    assert text.startswith(answer.removesuffix(".")), text


def test_an_answer_no_sentence_states_is_refused_without_quoting_it():
    # the sentence nearest to the question holds "64 megabytes", and states a piece's size,
    # not the master's memory: the reply refuses, and quotes another sentence
    text = shown([MAPREDUCE, CHUBBY], "**64 megabytes**.",
                 "How large is the MapReduce master's memory?")
    assert text.startswith("The documents don't say")
    assert not quotes_its_own_answer(text, "**64 megabytes**.")


def test_a_sentence_the_reader_is_sure_of_is_shown_instead_of_a_wrong_answer(monkeypatch):
    from ragcore.grounding import stating

    question = "How long is the grace period of a Chubby client by default?"
    monkeypatch.setattr(stating, "SURE", 0.3)  # the shipped 0.9 is rarely reached
    text = shown([MAPREDUCE, CHUBBY], "**60 seconds**.", question)
    assert text.startswith("**The documents say:** \u201cThe client waits a further interval "
                           "called the grace period, 45s by default.\u201d [1]")
    assert ("The model's answer, \u201c60 seconds\u201d, is not the answer this sentence "
            "gives") in text
    monkeypatch.setattr(stating, "SURE", 1.01)
    assert shown([MAPREDUCE, CHUBBY], "**60 seconds**.", question).startswith(
        "The documents don't say")


def test_a_wrong_short_answer_above_the_right_sentence_shows_the_sentence():
    # the bold answer only repeats the question; the model's own next sentence restates the
    # passage sentence the reader finds likeliest: the two agree, so that sentence is shown
    question = "How long is the grace period of a Chubby client by default?"
    answer = ("**Chubby**. The client waits a further interval called the grace period, 45s "
              "by default.")
    text = shown([MAPREDUCE, CHUBBY], answer, question)
    assert text.startswith("**The documents say:** \u201cThe client waits a further interval "
                           "called the grace period, 45s by default.\u201d [1]")
    assert "\u201cChubby\u201d, is not the answer this sentence gives" in text
    # the same short answer above a sentence the reader does not find answering: refused
    other = "**Chubby**. The client empties and disables its cache."
    assert shown([MAPREDUCE, CHUBBY], other, question).startswith("The documents don't")


def test_a_sentence_restated_in_half_its_words_is_shown_too():
    # "Its grace period is 45s." says 5 of the sentence's 10 content words (``RESTATED``: a
    # half; at 0.6 this reply was refused while the refusal quoted the sentence)
    question = "How long is the grace period of a Chubby client by default?"
    text = shown([MAPREDUCE, CHUBBY], "**Chubby**. Its grace period is 45s.", question)
    assert text.startswith("**The documents say:** \u201cThe client waits a further interval "
                           "called the grace period, 45s by default.\u201d [1]")


@pytest.mark.slow
def test_no_recorded_reply_refuses_while_quoting_its_own_answer():
    rows = [json.loads(line) for line in ROWS.read_text().splitlines()]
    offenders = [row["question"] for row in rows
                 if quotes_its_own_answer(shown(row["passages"], row["answer"],
                                                row["question"]), row["answer"],
                                          row["question"])]
    assert offenders == []


def test_nor_a_sentence_holding_the_bold_short_answer_its_first_claim_says_more_than():
    # the first claim is the whole line, which no sentence holds; its bold "6" is in one
    timing = ("Let's see how long it takes. $ time pdfgrep 'The Commentz-Walter algorithm' "
              "1995-watson.pdf -c 6 real 0.737s")
    other = "The guide compares rg --pre against pdfgrep on one large file."
    answer = "**6**. **pdfgrep** took 6 seconds. **rg --pre** took 6 seconds."
    question = "In the guide's timing of a PDF search, how long did rg --pre and pdfgrep take?"
    text = shown([timing, other], answer, question)
    assert not quotes_its_own_answer(text, answer), text
    # and no source is "nearest to your question" but the one quoted as nearest, [1]
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate([timing, other])]
    listing = mark_listing(answer, answer_sources(answer, nodes, retrieval_mode="similarity",
                                                  extractive=False, question=question))[1]
    assert all(s.number == 1 for s in listing.shown if s.use.note == NEAREST)
