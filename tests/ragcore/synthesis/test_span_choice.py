"""Span choice: a factoid answer the gate lets through is a phrase of the passages the model
chose, shown with its sentence; a reply outside the phrases falls back to the written answer."""

from __future__ import annotations

import math

import pytest

from ragcore.errors import ConfigError
from ragcore.llms.extractive.phrases import candidate_phrases
from ragcore.llms.fake import FakeLLM
from ragcore.llms.local.grammar import one_of
from ragcore.prompts.answer import CHECK_QUESTION
from ragcore.synthesis import Synthesizer
from ragcore.synthesis.not_found import NotFoundGate
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode

TOWER = ("The Eiffel Tower is 330 metres tall. It was built in 1889 by Gustave Eiffel for the "
         "World's Fair. The tower stands in Paris.")
WRITTEN = "**1890**. The model wrote this."
GATE = NotFoundGate(models=None)  # the shipped calibration, for any model that tells chances


class ChoosingFake(FakeLLM):
    """Sure the passages answer; chooses by ``pick`` among the options it is offered."""

    def __init__(self, pick) -> None:
        super().__init__(default=WRITTEN)
        self.pick = pick
        self.offered: list[tuple[list[Message], list[str]]] = []

    def first_token_logprobs(self, messages, *, top=10):
        if messages[-1].content.endswith(CHECK_QUESTION):
            return {"Yes": math.log(0.97), "No": math.log(0.03)}
        return {"**": math.log(0.95), "Not": math.log(0.01)}

    def choose(self, messages, options):
        self.offered.append((list(messages), list(options)))
        return self.pick(options)


def answer(llm, question: str, **options):
    trace = Trace()
    synthesizer = Synthesizer(llm, not_found_gate=GATE, **options)
    return synthesizer.synthesize(question, [ScoredNode(Node(text=TOWER), score=0.8)],
                                  trace=trace).text, trace


def test_the_chosen_phrase_is_shown_in_bold_with_its_sentence():
    llm = ChoosingFake(lambda options: options[1])  # not the answerer's own first choice
    text, trace = answer(llm, "When was the tower built?", span_choice=True)
    (messages, options), = llm.offered
    assert messages[-1] == Message("assistant", "**")  # after the same prompt and prefill
    sentence = next(s for s in TOWER.split(". ") if options[1] in s)
    assert text.startswith(f"**{options[1]}**. {sentence}")
    assert llm.calls == []  # nothing was written
    assert trace.notes["span_choice"] == {"candidates": options, "chosen": options[1]}
    assert all(option in TOWER for option in options) and "1889" in options


def test_a_reply_outside_the_candidates_falls_back_to_the_written_answer():
    llm = ChoosingFake(lambda options: "in 1890")
    text, trace = answer(llm, "When was the tower built?", span_choice=True)
    assert text == WRITTEN and len(llm.calls) == 1
    assert trace.notes["span_choice"]["chosen"] is None
    assert "none of the candidates" in trace.notes["span_choice"]["fell_back"]


def test_span_choice_is_off_by_default_and_for_questions_that_are_not_factoids():
    llm = ChoosingFake(lambda options: options[0])
    assert answer(llm, "When was the tower built?")[0] == WRITTEN
    assert answer(llm, "List the facts about the tower.", span_choice=True)[0] != ""
    assert llm.offered == []


def test_span_choice_must_be_a_bool():
    with pytest.raises(ConfigError, match="span_choice"):
        Synthesizer(FakeLLM(), span_choice="yes")


def test_the_candidates_are_distinct_phrases_of_the_passages_best_first():
    phrases = candidate_phrases([TOWER], "Who built the tower?", limit=5)
    assert phrases[0].text == "Gustave Eiffel" and len(phrases) == 5
    assert len({p.text.casefold() for p in phrases}) == 5
    assert all(p.text in p.sentence and p.sentence in TOWER for p in phrases)
    assert not any(p.text == "Eiffel" for p in phrases)  # a cut of a phrase already offered
    assert candidate_phrases([""], "Who built the tower?") == []


def test_a_phrase_comes_with_its_own_sentence_of_those_the_reader_kept():
    kept = TOWER.replace(". ", ". \u2026 ")  # the sentence reader's join of what it kept
    (phrase,) = candidate_phrases([kept], "Who built the tower?", limit=1)
    assert phrase.sentence == "It was built in 1889 by Gustave Eiffel for the World's Fair."


def test_the_grammar_allows_each_option_word_for_word():
    assert one_of(["1889", "Gustave Eiffel"]) == 'root ::= "1889" | "Gustave Eiffel"'
    assert one_of(['the "Iron Lady"', "a\\b\nc"]) == (
        'root ::= "the \\"Iron Lady\\"" | "a\\\\b\\nc"')
    with pytest.raises(ConfigError, match="options"):
        one_of([])
