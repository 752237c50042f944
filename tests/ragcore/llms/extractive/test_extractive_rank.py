"""How the extractive answerer ranks sentences: parts of a question, form, context, floors."""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.extractive.rank import Scorer, question_parts, rank
from ragcore.llms.extractive.text import candidates


def chosen(context: str, question: str, *, limit: int = 3, embedder=None) -> list[str]:
    cands = candidates(context)
    ranking = rank(Scorer(cands, embedder), question, limit=limit)
    return [cands[i].text for i in ranking.chosen]


@pytest.mark.parametrize(
    "question, parts",
    [
        ("Who is responsible for moving the servers, and what is the budget?",
         ["Who is responsible for moving the servers", "what is the budget"]),
        ("How old were Officer Wilbert Mora and Officer Jason Rivera?",
         ["How old were Officer Wilbert Mora", "How old were Officer Jason Rivera"]),
        ("What happens on integer overflow in a debug build and in a release build?",
         ["What happens on integer overflow in a debug build",
          "What happens on integer overflow in a release build"]),
        ("What is the budget? Who approved it?", ["What is the budget", "Who approved it"]),
        ("What is zero trust?", ["What is zero trust"]),
    ],
)
def test_question_parts(question, parts):
    assert question_parts(question) == parts


def test_each_named_part_gets_its_own_answer():
    context = ("I visited the department after the funerals of Officer Mora and Officer Rivera. "
               "Officer Mora was 27 years old. Both served in Harlem. Officer Rivera was 22.")
    answer = chosen(context, "How old were Officer Mora and Officer Rivera?")
    assert answer[:2] == ["Officer Mora was 27 years old.", "Officer Rivera was 22."] or \
        set(answer[:2]) == {"Officer Mora was 27 years old.", "Officer Rivera was 22."}


def test_a_how_many_question_prefers_the_sentence_with_a_number():
    context = "The protocol pages are long, dense and many. The protocol has 194 pages."
    assert chosen(context, "How many pages does the protocol have?", limit=1) == [
        "The protocol has 194 pages."]


def test_a_sentence_that_only_restates_the_question_ranks_below_one_that_answers():
    context = ("I have a better plan to fight inflation. "
               "My plan to fight inflation cuts the cost of prescription drugs.")
    assert chosen(context, "What is the plan to fight inflation?", limit=1) == [
        "My plan to fight inflation cuts the cost of prescription drugs."]


def test_a_list_question_gets_the_list_and_other_questions_the_item():
    context = ("The compiler checks the rules below. The rules are simple:\n\n"
               "- Each value has an owner.\n- There can only be one owner at a time.\n")
    assert chosen(context, "What are the rules for owners?", limit=1) == [
        "The rules are simple:"]
    assert chosen(context, "How many owners can a value have at a time?", limit=1) == [
        "There can only be one owner at a time."]


def test_nothing_is_chosen_when_no_sentence_holds_enough_of_the_question():
    context = "The move starts on Friday. The budget is $48,000."
    ranking = rank(Scorer(candidates(context)), "Which vendor supplies the routers?", limit=3)
    assert not ranking.found and ranking.chosen == []


def test_the_model_floor_applies_only_to_the_model_it_was_measured_with():
    cands = candidates("The move starts on Friday. The budget is $48,000.")
    measured = FakeEmbedder(model_name="all-MiniLM-L6-v2")
    other = FakeEmbedder(model_name="some-other-model")
    # Under the measured model a score under the floor is noise; other models' cosines mean
    # something else, so the words decide there.
    assert not Scorer(cands, measured).answers("When does the move start?", 0.3)
    assert Scorer(cands, other).answers("When does the move start?", 0.3)


def test_sentences_are_embedded_in_one_batch_and_the_question_with_its_parts_in_another():
    embedder = FakeEmbedder()
    cands = candidates("The move starts on Friday. It ends on Sunday. The budget is $48,000.")
    scorer = Scorer(cands, embedder)
    rank(scorer, "When does the move start, and what is the budget?", limit=3)
    # one batch of sentences (with their headings), one of the question and its two parts
    assert embedder.calls == 2
    scorer.scores("When does the move start, and what is the budget?")
    assert embedder.calls == 2


def test_meaning_outranks_a_shared_word_when_a_model_is_given():
    class Topics:
        """Two topics: a sentence is about moving or about health (its first word says)."""

        model_name = "topics"

        def embed_batch(self, texts):
            import numpy as np

            rows = [[1.0, 0.0] if any(w in t.lower() for w in ("move", "relocation"))
                    else [0.0, 1.0] for t in texts]
            return np.asarray(rows, dtype=np.float32)

    context = ("Smoking is the main risk factor for heart disease. "
               "The biggest danger of the relocation is a network outage.")
    question = "What is the main risk of the move?"
    assert chosen(context, question, limit=1) == [
        "Smoking is the main risk factor for heart disease."]
    assert chosen(context, question, limit=1, embedder=Topics()) == [
        "The biggest danger of the relocation is a network outage."]
