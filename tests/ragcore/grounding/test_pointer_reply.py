"""A reply that points at the passages ("The passage states that ...") instead of naming an
answer is an answer only where the sentence it points at answers the question (issue 64: "What
is the default size of the Redis replication backlog?" answered with a sentence about tuning
it, shown as stated). Read by the shipped reader."""

from __future__ import annotations

import pytest

from ragcore.grounding import SUPPORTED, UNSUPPORTED, check_answer
from ragcore.grounding.located import POINTS_AT
from ragcore.grounding.stating import reader_available

PASSAGES = [
    "Redis replication\n\nThe replication backlog is a buffer that accumulates replica data "
    "when replicas are disconnected for some time. There are also a few parameters for tuning "
    "the replication backlog, such as its size and its time to live. The bigger the "
    "replication backlog, the longer the replica can endure the disconnect."
]
TUNING = ("The passage states that \u201cThere are also a few parameters for tuning the "
          "replication backlog, such as its size and its time to live.\u201d")

needs_reader = pytest.mark.skipif(not reader_available(), reason="the reader's weights")


@pytest.mark.parametrize("reply", [
    "The passage states that X.", "According to the documents, X.", "The text mentions X.",
    "This passage clearly says X."])
def test_the_frames_that_point_at_the_passages(reply):
    assert POINTS_AT.match(reply)


@pytest.mark.parametrize("reply", ["**4096**. The passage states it.", "Passage 2 is long."])
def test_an_answer_is_no_pointer(reply):
    assert not POINTS_AT.match(reply)


@needs_reader
def test_a_pointer_at_a_sentence_that_does_not_answer_is_not_an_answer():
    verdict = check_answer(TUNING, PASSAGES,
                           question="What is the default size of the Redis replication backlog?")
    assert verdict.label == UNSUPPORTED


@needs_reader
def test_a_pointer_at_the_sentence_that_answers_is_kept():
    verdict = check_answer(
        "The passage states that the replication backlog is a buffer that accumulates replica "
        "data when replicas are disconnected for some time.", PASSAGES,
        question="What is the replication backlog?")
    assert verdict.label == SUPPORTED


GREGOR = ("One morning, when Gregor Samsa woke from troubled dreams, he found himself "
          "transformed in his bed into a horrible vermin. He lay on his armour-like back, and if "
          "he lifted his head a little he could see his brown belly.")


@needs_reader
def test_an_attribution_naming_an_answer_is_kept_where_the_reader_finds_it_answering(
        monkeypatch):
    # the walk of issue 66: "According to the context provided, ..." was refused while the
    # refusal quoted the sentence stating it ("provided" was read as a word of the answer)
    from ragcore.grounding import stating

    reply = "According to the context provided, Gregor Samsa turns into a horrible vermin."
    asked = "What does Gregor Samsa turn into?"
    verdict = check_answer(reply, [GREGOR], question=asked)
    assert verdict.label == SUPPORTED
    assert "provid" not in verdict.claims[0].claim.stems  # the attribution claims nothing
    monkeypatch.setattr(stating, "STATES", 0.99)  # a pointer needs the reader, not the words
    assert check_answer(reply, [GREGOR], question=asked).label == UNSUPPORTED
    # and an answer the sentence does not hold is not located by it
    monkeypatch.setattr(stating, "STATES", 0.5)
    assert check_answer("According to the documents, Gregor Samsa turns into a giant beetle.",
                        [GREGOR], question=asked).label == UNSUPPORTED
