"""The not-found gate: a model that can tell its first tokens' chances is asked, before the answer
streams, whether the passages hold the answer; the refusal is a plain first sentence and the
signals stay out of the answer text."""

from __future__ import annotations

import dataclasses
import math

import pytest

from ragcore.errors import ConfigError
from ragcore.llms.fake import FakeLLM
from ragcore.prompts.answer import (
    ANSWER_NUDGE,
    CHECK_QUESTION,
    NOT_FOUND_SENTENCE,
    QA,
    SynthesisPrompts,
)
from ragcore.synthesis import ResponseMode, Synthesizer
from ragcore.synthesis.not_found import (
    Calibration,
    NotFoundGate,
    check_messages,
    closest_sentence,
)
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode

# The mechanism under test, with weights of its own (the shipped ones come from calibration).
MODEL_SIGNALS = Calibration(("p_not_found", "p_no"), (0.0, 1.0, 1.0), 0.5)
GATE = NotFoundGate(calibration=MODEL_SIGNALS, model_only=MODEL_SIGNALS, models=None)
TIDE = "The tide at Brest rises twice a day. High tide came at 6:12 on Monday."


class LogprobFakeLLM(FakeLLM):
    """A FakeLLM that also tells first-token chances: unsure ("No", "Not") when the question's
    last word is not in the passages, sure otherwise; it records each logprob request."""

    def __init__(self, **options) -> None:
        super().__init__(default="**6:12**. High tide came at 6:12 on Monday.", **options)
        self.logprob_calls: list[list] = []

    def first_token_logprobs(self, messages, *, top=10):
        self.logprob_calls.append(list(messages))
        text = messages[-1].content
        asked = text.split("Question:")[-1].split("\n")[0].strip(" ?").split()[-1]
        knows = asked.casefold() in text.split("Question:")[0].casefold()
        if text.endswith(CHECK_QUESTION):
            yes = 0.9 if knows else 0.2
            return {"Yes": math.log(yes), "No": math.log(1 - yes)}
        return {"**": math.log(0.9), "Not": math.log(0.05)} if knows else {
            "**": math.log(0.55), "Not": math.log(0.4)}


def nodes(*texts: str) -> list[ScoredNode]:
    return [ScoredNode(Node(text=t), score=0.5) for t in texts]


def test_a_question_the_passages_answer_streams_the_models_answer():
    llm = LogprobFakeLLM()
    response = Synthesizer(llm, not_found_gate=GATE).synthesize("When was high tide on Monday?", nodes(TIDE))
    assert response.text.startswith("**6:12**")
    assert response.metadata["not_found_gate"]["refuse"] is False


def test_a_question_they_do_not_answer_is_refused_in_the_first_sentence():
    llm = LogprobFakeLLM()
    trace = Trace()
    response = Synthesizer(llm, not_found_gate=GATE).synthesize("How tall is the lighthouse?", nodes(TIDE),
                                           trace=trace)
    text = response.text
    assert text.split("\n")[0] == NOT_FOUND_SENTENCE
    assert "The tide at Brest" in text  # what the closest passage says, after the refusal
    assert llm.calls == []  # the answer was never asked for
    decision = trace.notes["not_found_gate"]
    assert decision["refuse"] is True and decision["score"] >= decision["threshold"]
    assert set(decision["signals"]) == {"p_not_found", "model_refuses", "p_no", "p_answered"}
    assert decision["signals"]["p_answered"] is None  # no embedder: the model's signals alone
    assert "score" not in text and "0." not in text  # signals stay out of band


def test_the_check_pass_shares_the_answer_prompts_prefix():
    llm = LogprobFakeLLM()
    Synthesizer(llm, not_found_gate=GATE).synthesize("When was high tide on Monday?", nodes(TIDE)).text
    check, answer_prompt = llm.logprob_calls  # the check first: the answer reuses what it read
    assert llm.calls[0][:-1] == answer_prompt
    shared = answer_prompt[-1].content.rsplit("\n", 1)[0]
    assert check[-1].content == f"{shared}\n{CHECK_QUESTION}"
    assert check[0] == answer_prompt[0]


def test_the_gate_not_the_models_first_token_decides_to_answer():
    class Refuser(LogprobFakeLLM):
        def first_token_logprobs(self, messages, *, top=10):
            if messages[-1].content.endswith(CHECK_QUESTION):
                return {"Yes": math.log(0.95), "No": math.log(0.05)}
            return {"Not": math.log(0.45), "**": math.log(0.4)}

    def reply(messages):
        return "**6:12**." if ANSWER_NUDGE in messages[-2].content else NOT_FOUND_SENTENCE

    llm = Refuser(replies=[reply])
    response = Synthesizer(llm, not_found_gate=GATE).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text == "**6:12**."
    prompt = llm.calls[0][-2].content
    assert prompt.endswith(f"{ANSWER_NUDGE}\nAnswer:")
    gate = response.metadata["not_found_gate"]
    assert gate["signals"]["model_refuses"] is True and gate["refuse"] is False


@pytest.mark.parametrize("mode", [ResponseMode.COMPACT, ResponseMode.REFINE,
                                  ResponseMode.SIMPLE_SUMMARIZE, ResponseMode.TREE_SUMMARIZE])
def test_an_answer_the_gate_lets_through_is_begun_with_its_bold_short_answer(mode):
    # The model is given "**" as the start of its reply and continues it: it cannot open with
    # its own "Not found" once the gate found the answer; the reply keeps the "**".
    llm = LogprobFakeLLM(replies=["6:12**. High tide came at 6:12 on Monday."])
    response = Synthesizer(llm, response_mode=mode, not_found_gate=GATE).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text == "**6:12**. High tide came at 6:12 on Monday."
    assert llm.calls[0][-1] == Message("assistant", "**")
    assert [m.role for m in llm.calls[0]] == ["system", "user", "assistant"]


def test_a_template_without_a_prefill_is_answered_as_it_asks():
    plain = dataclasses.replace(QA, prefill="")
    llm = LogprobFakeLLM(replies=["At 6:12."])
    response = Synthesizer(llm, not_found_gate=GATE,
                           prompts=SynthesisPrompts(qa=plain)).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text == "At 6:12." and llm.calls[0][-1].role == "user"


def test_a_threshold_of_one_records_the_signals_but_never_refuses():
    llm = LogprobFakeLLM()
    synthesizer = Synthesizer(llm, not_found_gate=NotFoundGate(refuses=False, models=None))
    response = synthesizer.synthesize("How tall is the lighthouse?", nodes(TIDE))
    assert response.text.startswith("**6:12**")
    assert response.metadata["not_found_gate"]["signals"]["p_no"] == pytest.approx(0.8)


@pytest.mark.parametrize("mode", [ResponseMode.ACCUMULATE, ResponseMode.GENERATION])
def test_modes_without_one_answer_from_the_passages_are_not_gated(mode):
    llm = LogprobFakeLLM()
    response = Synthesizer(llm, response_mode=mode, not_found_gate=GATE).synthesize("How tall is it?", nodes(TIDE))
    response.text
    assert llm.logprob_calls == [] and "not_found_gate" not in response.metadata


def test_backends_without_logprobs_answer_as_before():
    llm = FakeLLM(replies=["It is 30 m tall."])
    response = Synthesizer(llm, not_found_gate=GATE).synthesize("How tall is the lighthouse?", nodes(TIDE))
    assert response.text == "It is 30 m tall." and "not_found_gate" not in response.metadata


def test_no_gate_when_none_is_given():
    llm = LogprobFakeLLM()
    response = Synthesizer(llm, not_found_gate=None).synthesize("How tall is it?", nodes(TIDE))
    assert response.text.startswith("**6:12**") and llm.logprob_calls == []


def test_the_score_rises_with_both_signals():
    from ragcore.synthesis.not_found import GateSignals

    low = GATE.score(GateSignals(0.05, False, 0.1))
    mid = GATE.score(GateSignals(0.2, False, 0.9))
    high = GATE.score(GateSignals(0.4, False, 0.9))
    assert low < 0.5 < mid < high


@pytest.mark.parametrize("options, message", [
    ({"threshold": 0.0}, r"threshold \(0.0\) must be in \(0, 1\]"),
    ({"weights": (1.0, 2.0)}, r"must be 3 finite numbers"),
    ({"signals": ("p_yes",), "weights": (0.0, 1.0)}, r"must be some of"),
])
def test_bad_calibrations_say_what_to_do(options, message):
    with pytest.raises(ConfigError, match=message):
        Calibration(**{"signals": ("p_not_found", "p_no"), "weights": (0.0, 1.0, 1.0),
                       "threshold": 0.5, **options})


def test_check_messages_replace_only_the_cue_line():
    messages = QA.format(context="A.\nAnswer: b", question="What?")
    check = check_messages(messages)
    assert check[-1].content.endswith("Question: What?\n" + CHECK_QUESTION)
    assert "Answer: b" in check[-1].content


def test_the_closest_sentence_shares_most_question_words_and_is_cut_short():
    passages = ["Lighthouses guide ships.", "The Brest lighthouse is 30 m tall. It is white."]
    assert closest_sentence("How tall is the Brest lighthouse?", passages) == (
        "The Brest lighthouse is 30 m tall.")
    long = "Brest lighthouse " + "word " * 60
    assert closest_sentence("Brest lighthouse?", [long]).endswith("\u2026")
    assert closest_sentence("Zebras?", passages) == ""
    # a title's period ends no sentence: the quote is the whole sentence, not "... Neville St."
    story = ("It was Neville St.\u00a0Clair\u2019s coat, and not Neville St.\u00a0Clair, which "
             "lay uncovered as the tide receded. Mr. Holmes smoked.")
    assert closest_sentence("How old is Neville St. Clair?", [story]).endswith(
        "as the tide receded.")


def test_only_the_models_the_gate_was_calibrated_for_are_gated():
    llm = LogprobFakeLLM()  # model "fake"
    response = Synthesizer(llm).synthesize("How tall is the lighthouse?", nodes(TIDE))
    assert response.text.startswith("**6:12**") and llm.logprob_calls == []
    gate = NotFoundGate(models=("fake",))
    assert gate.applies_to(llm) and not gate.applies_to(FakeLLM())


def test_engines_get_the_calibrated_gate_by_default():
    from ragcore.synthesis.not_found import CALIBRATED, MODEL_ONLY

    gate = Synthesizer(LogprobFakeLLM()).not_found_gate
    assert (gate.calibration, gate.model_only) == (CALIBRATED, MODEL_ONLY)
    assert "p_answered" in CALIBRATED.signals and "p_answered" not in MODEL_ONLY.signals


class EmbeddingLogprobLLM(LogprobFakeLLM):
    """Carries the index's embedder, as ``with_embedder`` gives it to LocalLLM."""

    def __init__(self, **options) -> None:
        from ragcore.embeddings.fake import FakeEmbedder

        super().__init__(**options)
        self.embedder = FakeEmbedder(dim=64)


# Only the answerability model speaks: the model's own signals weigh nothing.
ANSWERABILITY = Calibration(("p_not_found", "p_answered"), (0.0, 0.0, 1.0), 0.5)


def test_with_the_index_embedder_the_passages_answerability_is_measured_and_weighed(
        monkeypatch):
    from ragcore.synthesis import not_found

    measured = []

    def answerability(passages, question, *, embedder):
        measured.append((list(passages), question, embedder))
        return 0.9 if "tide" in question else 0.1

    monkeypatch.setattr(not_found, "answerability", answerability)
    gate = NotFoundGate(calibration=ANSWERABILITY, model_only=MODEL_SIGNALS, models=None)
    llm = EmbeddingLogprobLLM()
    answered = Synthesizer(llm, not_found_gate=gate).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert answered.text.startswith("**6:12**")
    refused = Synthesizer(llm, not_found_gate=gate).synthesize("When was Monday?", nodes(TIDE))
    assert refused.text.split("\n")[0] == NOT_FOUND_SENTENCE
    decision = refused.metadata["not_found_gate"]
    assert decision["signals"]["p_answered"] == 0.1 and decision["signals"]["p_no"] is None
    assert measured[0] == ([TIDE], "When was high tide on Monday?", llm.embedder)
    # a calibration without p_no skips the check pass: one logprob request per question
    assert all(not call[-1].content.endswith(CHECK_QUESTION) for call in llm.logprob_calls)
    assert len(llm.logprob_calls) == 2


def test_the_real_answerability_model_runs_on_the_passages():
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.llms.extractive.answer import answerability

    embedder = FakeEmbedder(dim=64)
    sure = answerability([TIDE], "When was high tide on Monday?", embedder=embedder)
    unsure = answerability([TIDE], "Who painted the lighthouse?", embedder=embedder)
    assert 0.0 <= unsure < sure <= 1.0
    assert answerability([], "When was high tide?", embedder=embedder) == 0.0


@pytest.mark.parametrize("size", [1, 2, 3, 5, 40])
def test_a_slot_of_the_answer_form_the_model_copied_is_never_shown(size):
    # Seen on the packaged model: "**Bow and arrows**. **<support>**The passage states ...";
    # the slot is taken out however the stream splits it.
    llm = LogprobFakeLLM(replies=["6:12**. **<support>**High tide came at 6:12 <support>on "
                                  "**Support:** Monday."], chunk_size=size)
    response = Synthesizer(llm, not_found_gate=GATE).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text == "**6:12**. High tide came at 6:12 on Monday."
    plain = Synthesizer(FakeLLM(replies=["<short answer> is 6:12 <sup"], chunk_size=size),
                        not_found_gate=None).synthesize("When?", nodes(TIDE))
    assert plain.text == "is 6:12 <sup"  # a tail that only began a slot is kept
    # The slot as the short answer: "**" continued with "<support>**. ..." (unseen tune half,
    # u103); the marks it leaves at the start go with it.
    empty = LogprobFakeLLM(replies=["<support>**. High tide came at 6:12 on Monday."],
                           chunk_size=size)
    response = Synthesizer(empty, not_found_gate=GATE).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text == "High tide came at 6:12 on Monday."


SHIPPED = NotFoundGate(models=None)  # the shipped calibrations, for any LLM telling chances


def test_the_shipped_gate_reads_the_prompt_once():
    # One pass: the check question in place of the answer's cue; the answer then shares every
    # token before the cue (the slot's cache), so the gate's own cost is the check question.
    llm = LogprobFakeLLM()
    response = Synthesizer(llm, not_found_gate=SHIPPED).synthesize(
        "When was high tide on Monday?", nodes(TIDE))
    assert response.text.startswith("**6:12**")
    [check] = llm.logprob_calls
    assert check[-1].content.endswith(CHECK_QUESTION)
    shared = check[-1].content.removesuffix(CHECK_QUESTION)
    assert llm.calls[0][-2].content.startswith(shared)
    signals = response.metadata["not_found_gate"]["signals"]
    assert signals["p_not_found"] is None and signals["model_refuses"] is None


def test_an_answer_that_refuses_what_the_gate_found_is_asked_again_nudged():
    def reply(messages):
        return "6:12**." if ANSWER_NUDGE in messages[-2].content else "Not found in the documents."

    class Sure(LogprobFakeLLM):
        def first_token_logprobs(self, messages, *, top=10):
            self.logprob_calls.append(list(messages))
            return {"Yes": math.log(0.95), "No": math.log(0.05)}

    llm = Sure(replies=[reply, reply])
    trace = Trace()
    response = Synthesizer(llm, not_found_gate=SHIPPED).synthesize(
        "When was high tide on Monday?", nodes(TIDE), trace=trace)
    assert response.text == "**6:12**."
    assert len(llm.calls) == 2 and ANSWER_NUDGE not in llm.calls[0][-2].content
    assert trace.notes["not_found_gate"]["nudged"] is True


def test_an_answer_the_model_gives_is_not_asked_again():
    llm = LogprobFakeLLM(replies=["6:12**. High tide came at 6:12 on Monday."])
    trace = Trace()
    response = Synthesizer(llm, not_found_gate=SHIPPED).synthesize(
        "When was high tide on Monday?", nodes(TIDE), trace=trace)
    assert response.text == "**6:12**. High tide came at 6:12 on Monday."
    assert len(llm.calls) == 1 and "nudged" not in trace.notes["not_found_gate"]


def test_the_gates_refusal_quotes_a_markdown_passage_as_the_model_read_it():
    # the gate reads the passages the prompt holds (``synthesis.passages``): its refusal's
    # closest sentence has no HTML tag of the stored Markdown
    node = Node(text='The <span class="tide">tide at Brest</span> rises twice a day.',
                metadata={"file_name": "tides.md"})
    response = Synthesizer(LogprobFakeLLM(), not_found_gate=GATE).synthesize(
        "How tall is the lighthouse?", [ScoredNode(node, score=0.5)])
    assert response.text.split("\n")[0] == NOT_FOUND_SENTENCE
    assert "tide at Brest rises twice a day" in response.text
    assert "<span" not in response.text
