"""The not-found gate with the packaged model (slow): a question the passages answer gets a bold
short answer; one they never touch is refused in the first sentence, before anything streams."""

from __future__ import annotations

import pytest

from ragcore.prompts.answer import NOT_FOUND_SENTENCE
from ragcore.synthesis import Synthesizer
from ragcore.types import Message, Node, ScoredNode

pytestmark = [pytest.mark.slow, pytest.mark.local_llm]

PASSAGE = ("Montana is a state in the Western region of the United States. It is the 4th largest "
           "state by area. The state's name comes from the Spanish word montana (mountain).")


@pytest.fixture(scope="module")
def synthesizer():
    from ragcore.llms.local import LocalLLM

    return Synthesizer(LocalLLM())


def test_an_answered_question_opens_with_the_bold_short_answer(synthesizer):
    response = synthesizer.synthesize("Which state is the 4th largest by area?",
                                      [ScoredNode(Node(text=PASSAGE), score=0.8)])
    assert response.text.startswith("**") and "Montana" in response.text.split("\n")[0]
    assert response.metadata["not_found_gate"]["refuse"] is False
    # The gate began the reply with "**" and the model continued it: one bold phrase, closed.
    (call,) = response.trace.llm_calls
    assert call.messages[-1] == Message("assistant", "**") and not call.reply.startswith("**")
    assert not response.text.startswith("****") and response.text.count("**") >= 2


def test_a_question_the_passage_never_touches_is_refused(synthesizer):
    response = synthesizer.synthesize("What is the boiling point of mercury in kelvin?",
                                      [ScoredNode(Node(text=PASSAGE), score=0.3)])
    assert response.text.split("\n")[0] == NOT_FOUND_SENTENCE
