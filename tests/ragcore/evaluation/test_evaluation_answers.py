"""Answer evaluators: a scripted judge (FakeLLM, and the loopback OpenAI-compatible server),
replies that ignore the format, and the offline proxies that name themselves."""

from __future__ import annotations

import pytest
from support.loopback import LoopbackServer, Reply, loopback  # noqa: F401 (fixture)

from ragcore.errors import ConfigError
from ragcore.evaluation import (
    BatchEvalRunner,
    CorrectnessEvaluator,
    FaithfulnessEvaluator,
    RelevancyEvaluator,
    SemanticSimilarityEvaluator,
)
from ragcore.evaluation.judge import read_score, read_yes_no
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM

CONTEXT = ["Herons nest high in alder trees along the river bank every spring."]
QUESTION = "Where do herons nest?"


@pytest.mark.parametrize("reply, passing", [
    ("YES\nEvery claim is in the sources.", True),
    ("**Verdict:** No. The answer invents a date.", False),
    ("Answer: pass", True),
    ("Not supported: the sources never mention oak trees.", False),
    ("The answer is relevant to the question.", True),
    ("It is not correct.", False),
])
def test_yes_no_is_read_wherever_the_judge_puts_it(reply, passing):
    verdict = read_yes_no(reply)
    assert verdict.passing is passing and verdict.error is None


@pytest.mark.parametrize("reply, score", [
    ("Score: 4\nMostly right.", 4.0), ("I'd give it 3/5 because it misses one part.", 3.0),
    ("score = 4.5", 4.5), ("Out of 10 points, score 2", 2.0),
])
def test_a_score_is_read_after_the_word_score_or_as_the_first_number_in_range(reply, score):
    assert read_score(reply).score == score


def test_a_reply_without_a_verdict_is_reported_not_raised():
    faithfulness = FaithfulnessEvaluator(FakeLLM(["The answer talks about birds."]))
    result = faithfulness.evaluate(QUESTION, "In alder trees.", CONTEXT)
    assert result.invalid_result and result.passing is None and result.score is None
    assert "could not read the judge's reply" in result.invalid_reason
    assert "talks about birds" in result.invalid_reason
    correctness = CorrectnessEvaluator(FakeLLM(["Score: excellent"]))
    result = correctness.evaluate(QUESTION, "Alder trees.", reference="In alder trees.")
    assert result.invalid_result and "no score from 1 to 5" in result.invalid_reason


def test_the_judge_gets_our_prompt_with_context_answer_and_reference():
    judge = FakeLLM(["NO\nThe sources do not say so.", "Score: 2\nWrong tree."])
    result = FaithfulnessEvaluator(judge).evaluate(QUESTION, "In oak trees.", CONTEXT)
    assert result.passing is False and result.score == 0.0
    assert result.feedback == "The sources do not say so." and result.method == "judge: fake"
    prompt = judge.calls[0][0].content
    assert CONTEXT[0] in prompt and "In oak trees." in prompt
    graded = CorrectnessEvaluator(judge).evaluate(QUESTION, "In oak trees.",
                                                  reference="In alder trees.")
    assert graded.score == 2.0 and graded.passing is False
    assert "In alder trees." in judge.calls[1][0].content


def test_offline_proxies_say_what_they_are(fake_embedder):
    faithful = FaithfulnessEvaluator().evaluate(
        QUESTION, "Herons nest high in alder trees along the river bank.", CONTEXT)
    assert faithful.passing and faithful.score == 1.0
    assert faithful.method.startswith("offline proxy: source support")
    invented = FaithfulnessEvaluator().evaluate(
        QUESTION, "Herons migrate to Egypt in large flocks every winter.", CONTEXT)
    assert invented.score == 0.0 and "unsupported" in invented.feedback
    correct = CorrectnessEvaluator().evaluate(QUESTION, "They nest in alder trees, mostly.",
                                              reference="in ALDER trees")
    assert correct.score == 5.0 and correct.passing and "gold match" in correct.method
    partial = CorrectnessEvaluator().evaluate(QUESTION, "oak trees", reference="alder trees")
    assert partial.score == pytest.approx(3.0) and not partial.passing  # F1 0.5 -> 1 + 4 x 0.5
    relevant = RelevancyEvaluator().evaluate(QUESTION, "Herons nest in trees.", CONTEXT)
    assert relevant.passing and "question match" in relevant.method


def test_the_extractive_backend_is_no_judge_and_gets_the_proxy():
    evaluator = FaithfulnessEvaluator(ExtractiveLLM())
    assert evaluator.llm is None and evaluator.method.startswith("offline proxy")


def test_semantic_similarity_is_the_embedding_cosine(fake_embedder):
    evaluator = SemanticSimilarityEvaluator(fake_embedder, similarity_threshold=0.99)
    same = evaluator.evaluate(response="alder trees", reference="alder trees")
    assert same.score == pytest.approx(1.0, abs=1e-5) and same.passing
    assert evaluator.evaluate(response="x", reference=None).invalid_result
    with pytest.raises(ConfigError, match="embed_batch"):
        SemanticSimilarityEvaluator(object())


def test_batch_runner_evaluates_queries_with_references_in_order():
    class Engine:
        def query(self, question):
            from ragcore.synthesis import Response
            from ragcore.types import Node, ScoredNode

            return Response.from_text(f"About {question}",
                                      source_nodes=[ScoredNode(Node(text=CONTEXT[0]), 1.0)])

    judge = FakeLLM(default="YES\nfine")
    runner = BatchEvalRunner({"relevancy": RelevancyEvaluator(judge),
                              "correctness": CorrectnessEvaluator()}, workers=2)
    results = runner.evaluate_queries(Engine(), queries=["herons?", "granite?"],
                                      reference=["About herons?", "basalt"])
    assert [r.query for r in results["relevancy"]] == ["herons?", "granite?"]
    assert [r.passing for r in results["relevancy"]] == [True, True]
    assert [r.score for r in results["correctness"]][0] == 5.0
    assert results["relevancy"][0].contexts == CONTEXT
    with pytest.raises(ConfigError, match="differ in length"):
        runner.evaluate_response_strs(["a"], ["b"], [[]], reference=[])


def test_the_loopback_openai_server_as_a_scripted_judge(loopback):
    from ragcore.llms.openai import OpenAILLM

    judge = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url, retry_backoff=0.0,
                      timeout=5.0)
    loopback.queue(Reply(text="YES\nThe answer repeats the source."),
                   Reply(text="Sorry, I can't grade that."),
                   Reply(status=500, error="overloaded"), Reply(status=500), Reply(status=500))
    passed = FaithfulnessEvaluator(judge).evaluate(QUESTION, "In alder trees.", CONTEXT)
    assert passed.passing and passed.method == "judge: openai:gpt-4o-mini"
    unread = CorrectnessEvaluator(judge).evaluate(QUESTION, "x", reference="In alder trees.")
    assert unread.invalid_result and "can't grade" in unread.invalid_reason
    failed = RelevancyEvaluator(judge).evaluate(QUESTION, "In alder trees.", CONTEXT)
    assert failed.invalid_result and failed.invalid_reason.startswith("the judge failed")
    body = loopback.requests_to("/v1/chat/completions")[0].json
    assert CONTEXT[0] in body["messages"][0]["content"]


def test_the_evaluators_share_one_embedding_of_each_text(fake_embedder):
    import numpy as np

    from ragcore.evaluation import default_evaluators
    from ragcore.evaluation.embedding_cache import CachedEmbedder

    class Counting:
        model_name = "counting"

        def __init__(self) -> None:
            self.texts: list[str] = []

        def embed_batch(self, texts):
            self.texts += list(texts)
            return fake_embedder.embed_batch(texts)

    counting = Counting()
    cached = CachedEmbedder(counting)
    first = cached.embed_batch(["a b", "c d", "a b"])
    again = cached.embed_batch(["c d", "e f"])
    assert counting.texts == ["a b", "c d", "e f"]
    assert np.array_equal(first[0], first[2]) and np.array_equal(first[1], again[0])
    assert np.allclose(again, fake_embedder.embed_batch(["c d", "e f"]))
    assert cached.model_name == "counting" and cached.embed_batch([]).shape[0] == 0
    evaluators = default_evaluators(None, embedder=counting)
    shared = {id(e.embedder) for e in evaluators.values() if hasattr(e, "embedder")}
    assert len(shared) == 1 and evaluators["semantic_similarity"].embed_model.embedder is counting
    tiny = CachedEmbedder(counting, max_texts=1)
    assert tiny.embed_batch(["x y", "z w"]).shape == (2, fake_embedder.dim)


def test_scaffolding_of_an_extractive_accumulate_answer_is_no_claim():
    from ragcore.evaluation.proxies import claim_text, source_support
    from ragcore.llms.extractive.backend import LABEL, NOT_FOUND

    passage = "Herons nest high in alder trees along the river bank every spring."
    answer = (f"Response 1 (birds.txt): {LABEL}: **alder trees**\n- {passage}\n\n"
              "---\n\nResponse 2 (birds.txt): quoted from the documents, best match first:\n"
              f"- {passage}\n\n---\n\nResponse 3 (rocks.txt): {NOT_FOUND.split(': ', 1)[1]}")
    assert claim_text(answer).split() == ["-", *passage.split(), "---", "-", *passage.split(),
                                          "---"]
    score, note = source_support(answer, [passage])
    assert score == 1.0 and "2 of 2 answer sentences" in note


def test_offline_measures_read_an_extractive_answer_without_its_label(fake_embedder):
    from ragcore.llms.extractive.backend import LABEL

    sentence = "Herons nest high in alder trees along the river bank every spring."
    answer = f"{LABEL}: **alder trees**\n- {sentence}"
    similar = SemanticSimilarityEvaluator(fake_embedder).evaluate(response=answer,
                                                                  reference=sentence)
    assert similar.score == pytest.approx(1.0, abs=1e-5)
    correct = CorrectnessEvaluator().evaluate(QUESTION, answer, reference=sentence + " Yes.")
    assert correct.score == pytest.approx(1 + 4 * 24 / 25)  # F1 of 12 words in 12 and 13


class CountingLLM:
    """Streams a long-winded verdict word by word and counts what the judge read."""

    model = "counting"

    def __init__(self) -> None:
        self.sent, self.closed = 0, False

    def stream(self, messages):
        words = ("Score: 4\nThe answer names the year the reference gives. " + "More. " * 300).split(" ")
        try:
            for word in words:
                self.sent += 1
                yield word + " "
        finally:
            self.closed = True


def test_the_judge_reads_the_verdict_and_one_sentence_then_stops_the_model():
    from ragcore.evaluation.judge import ask

    llm = CountingLLM()
    reply = ask(llm, "grade this")
    assert reply.strip() == "Score: 4\nThe answer names the year the reference gives."
    assert llm.closed and llm.sent < 20
    assert read_score(reply).score == 4
