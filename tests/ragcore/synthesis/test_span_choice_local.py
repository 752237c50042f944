"""Span choice with the packaged model (slow): llama.cpp's grammar confines the reply to the
offered phrases, and the answer shown is a phrase of the passage with its sentence."""

from __future__ import annotations

import pytest

from ragcore.synthesis import Synthesizer
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode

pytestmark = [pytest.mark.slow, pytest.mark.local_llm]

PASSAGE = ("Montana is a state in the Western region of the United States. It is the 4th largest "
           "state by area. The state's name comes from the Spanish word montana (mountain).")


@pytest.fixture(scope="module")
def llm():
    from ragcore.llms.local import LocalLLM

    return LocalLLM()


def test_the_reply_is_one_of_the_options_even_when_none_is_right(llm):
    messages = [Message("user", "What is the capital of France? Answer in one word.")]
    assert llm.choose(messages, ["Berlin", "Madrid", "Tallinn and Riga"]) in (
        "Berlin", "Madrid", "Tallinn and Riga")


def test_the_answer_is_a_phrase_of_the_passage_shown_with_its_sentence(llm):
    trace = Trace()
    text = Synthesizer(llm, span_choice=True).synthesize(
        "What does the state's name come from?",
        [ScoredNode(Node(text=PASSAGE), score=0.8)], trace=trace).text
    note = trace.notes["span_choice"]
    assert note["chosen"] in note["candidates"] and note["chosen"] in PASSAGE
    bold, sentence = text.split("**. ", 1)
    assert bold == f"**{note['chosen']}" and sentence in PASSAGE and note["chosen"] in sentence
    assert [call.purpose for call in trace.llm_calls] == ["span choice"]


def test_a_begun_reply_is_continued_and_not_repeated_in_the_choice(llm):
    messages = [Message("user", "What is the capital of France?"), Message("assistant", "**")]
    assert llm.choose(messages, ["Paris", "Berlin"]) == "Paris"
