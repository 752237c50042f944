"""What a question asks about and the documents never write is said plainly, first: "The
documents don't mention Queen Elizabeth.", "No" to whether they mention it; and a refusal the
model wrote in its own words ("The speech does not mention quantum computing.") is shown as
the refusal it is, not checked as a claim and marked "(not in the documents)"."""

from __future__ import annotations

from ragcore.grounding.answer_type import mention_topic
from ragcore.grounding.located import unmentioned
from ragcore.grounding.nearest import not_mentioned
from ragcore.grounding.verdict import is_refusal
from ragcore.present.markers import mark_listing
from ragcore.present.sources import answer_sources
from ragcore.types import Node, ScoredNode

SPEECH = ("Tonight I can announce that we will cap the cost of insulin at $35 a month. "
          "We will build a national network of 500,000 electric vehicle charging stations.")
INDEX_WORDS = set(SPEECH.lower().replace(".", " ").replace(",", " ").split()) | {"president"}


def held(text: str) -> bool:
    """The index's words, as ``KeywordIndex.holds`` reads them: every word somewhere."""
    words = [w for w in text.lower().split() if w not in ("the", "a", "an")]
    return bool(words) and all(w in INDEX_WORDS for w in words)


def shown(answer: str, question: str) -> str:
    nodes = [ScoredNode(Node(text=SPEECH, node_id="n0"), 0.7)]
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question, held=held)
    return mark_listing(answer, listing)[0]


def test_a_refusal_in_the_models_own_words_is_a_refusal():
    assert is_refusal("The speech does not mention quantum computing.")
    assert is_refusal("There is no mention of quantum computing in the passages.")
    assert is_refusal("The provided passages don't say.")
    assert not is_refusal("The client does not mention a lock.")  # an answer about a client
    text = shown("The speech does not mention quantum computing.",
                 "What does the speech say about quantum computing?")
    assert text.startswith("The speech does not mention quantum computing.")
    assert "(not in the documents)" not in text and "Check this answer" not in text


def test_what_a_question_asks_to_be_mentioned_is_its_topic():
    assert mention_topic("Did the President mention quantum computing?") == "quantum computing"
    assert mention_topic("Is Queen Elizabeth mentioned in the speech?") == "Queen Elizabeth"
    assert mention_topic("What does the speech say about the price of insulin?") == \
        "price of insulin"
    assert mention_topic("How much does insulin cost?") is None


def test_a_topic_no_passage_and_no_part_of_the_index_writes_is_unmentioned():
    asked = "Did the President mention quantum computing?"
    assert unmentioned(asked, [SPEECH], held=held) == ["quantum computing"]
    assert unmentioned("Did the President mention insulin?", [SPEECH], held=held) == []
    # without the index to ask, a topic is not said absent (the passages are a few of its parts)
    assert unmentioned("Does the speech mention quantum computing?", [SPEECH]) == []


def test_names_next_to_each_other_are_said_together_and_a_mention_question_gets_no():
    assert not_mentioned("Is Queen Elizabeth mentioned in the speech?",
                         ["Elizabeth", "Queen"]) == \
        "**No**: the documents don't mention Queen Elizabeth."
    assert not_mentioned("Is Mars larger than Venus?", ["Venus", "Mars"]) == \
        "The documents don't mention Mars or Venus."


def test_the_models_refusal_of_a_mention_question_answers_no():
    text = shown("Not found in the documents.", "Did the President mention quantum computing?")
    assert text.startswith("**No**: the documents don't mention quantum computing."), text


def test_a_topic_asked_about_whole_keeps_its_article():
    # issue 66's walk: "Is the moon landing mentioned in the documents?"
    asked = "Is the moon landing mentioned in the documents?"
    assert not_mentioned(asked, ["moon landing"]).startswith(
        "**No**: the documents don't mention the moon landing.")
    # a name out of a longer phrase takes none: "the Fastnet lighthouse" is not "the Fastnet"
    assert not_mentioned("When does the Fastnet lighthouse light its lamp?", ["Fastnet"]) == \
        "The documents don't mention Fastnet."
