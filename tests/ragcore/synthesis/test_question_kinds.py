"""Each kind of question takes its own path through the synthesizer: only a factoid can be
refused by the not-found gate; a list is asked for its items; the kind is in the trace."""

from __future__ import annotations

import pytest

from ragcore.prompts.answer import LIST_QA, NOT_FOUND_SENTENCE, OVERVIEW
from ragcore.synthesis import Synthesizer
from ragcore.trace import Trace

from test_not_found_gate import GATE, TIDE, LogprobFakeLLM, nodes


@pytest.mark.parametrize("mode", ["compact", "refine", "simple_summarize", "tree_summarize"])
def test_a_summary_request_is_never_refused_by_the_factoid_gate(mode):
    llm, trace = LogprobFakeLLM(), Trace()
    response = Synthesizer(llm, response_mode=mode, not_found_gate=GATE).synthesize(
        "Summarise.", nodes(TIDE), trace=trace)
    assert not response.text.startswith(NOT_FOUND_SENTENCE)
    assert llm.logprob_calls == []  # the gate never ran
    assert trace.notes["question_kind"] == "summary"
    assert "skipped" in trace.notes["not_found_gate"]
    assert OVERVIEW.system in llm.calls[0][0].content


def test_the_same_request_as_a_factoid_would_be_refused():
    # the guard of the test above: this fake refuses when the question's last word is unknown
    response = Synthesizer(LogprobFakeLLM(), not_found_gate=GATE).synthesize(
        "What is the lighthouse?", nodes(TIDE))
    assert response.text.startswith(NOT_FOUND_SENTENCE)


def test_a_list_question_is_asked_for_its_items_and_begun_as_a_list():
    llm = LogprobFakeLLM(replies=["High tide at 6:12\n- twice a day"])
    response = Synthesizer(llm, not_found_gate=GATE).synthesize(
        "What are the tides at Brest?", nodes(TIDE))
    response.text
    assert LIST_QA.system in llm.calls[0][0].content
    assert llm.calls[0][-1].content == "- "  # the packaged model continues the list
    assert response.text.startswith("- High tide")
    assert response.metadata["question_kind"] == "list"


def test_a_callers_own_template_is_kept_for_every_kind():
    from dataclasses import replace
    from ragcore.prompts.answer import QA, SynthesisPrompts

    own = replace(QA, system="Answer like a pirate.")
    llm = LogprobFakeLLM()
    Synthesizer(llm, prompts=SynthesisPrompts(qa=own), not_found_gate=None).synthesize(
        "List the tides.", nodes(TIDE)).text
    assert llm.calls[0][0].content == "Answer like a pirate."
