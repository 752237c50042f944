"""A chat's title reads as a person writes one: its quote marks paired, a title told apart
from another's by a whole phrase or a number, never by words cut mid-phrase, and naming only
what the chat says (issue 66)."""

from __future__ import annotations

import pytest

from ragcore.chat.titles import chat_title, distinct_title, key_phrase_title, unsaid_names
from ragcore.llms.fake import FakeLLM


# A conversation naming what the titles below name: a title keeps only what the chat says.
KAFKA = "What happens to Gregor in Franz Kafka's Metamorphosis, and to Josef K in The Trial?"
KAFKA_REPLY = ("Gregor Samsa wakes as a monstrous vermin; Josef K is arrested. The Castle is "
               "another of Kafka's novels.")


@pytest.mark.parametrize("reply, title", [
    ('Franz Kafka\'s "Metamorphosis"', 'Franz Kafka\'s "Metamorphosis"'),  # was cut unpaired
    ('"Franz Kafka\'s "Metamorphosis""', 'Franz Kafka\'s "Metamorphosis"'),
    ('"Kafka\'s Metamorphosis"', "Kafka's Metamorphosis"),
    ('"Trial" and "Castle"', '"Trial" and "Castle"'),
    ('Title: “The Trial', "The Trial"),
    ("The 'Trial of Josef K", "The Trial of Josef K"),
    ("The students' essays", "The students' essays"),
])
def test_a_models_title_keeps_its_quote_marks_paired(reply, title):
    assert chat_title(KAFKA, KAFKA_REPLY, FakeLLM([reply])) == title


def test_an_unpaired_quote_mark_is_dropped():
    from ragcore.chat.titles import balanced_quotes

    assert balanced_quotes('Franz Kafka\'s "Metamorphosis') == "Franz Kafka's Metamorphosis"
    assert balanced_quotes('Metamorphosis" by Kafka') == "Metamorphosis by Kafka"
    assert balanced_quotes('A "long" title "cut') == 'A "long" title cut'


def test_a_long_quoted_title_cut_to_fit_drops_the_quote_it_cut():
    reply = 'Kafka and "The Metamorphosis of Gregor Samsa into a monstrous vermin"'
    title = chat_title(KAFKA, KAFKA_REPLY, FakeLLM([reply]))
    assert title.endswith("…") and '"' not in title, title


def test_a_title_is_never_told_apart_by_a_phrase_cut_mid_sentence():
    taken = {"URI Scheme Component Syntax"}
    question = "What is the URI scheme component's syntax according to RFC 3986?"
    answer = "A scheme name begins with a letter."
    title = distinct_title("URI Scheme Component Syntax", taken, question, answer)
    assert title != "URI Scheme Component Syntax: URI scheme component's syntax according"
    assert title in ("URI Scheme Component Syntax: RFC 3986", "URI Scheme Component Syntax (2)")
    # an answer's phrase is used whole ("a letter"), not "scheme name begins"
    assert distinct_title("Scheme names", {"scheme names"}, "Scheme names?",
                          "A scheme name begins with a letter.") == "Scheme names: letter"


def test_a_models_title_naming_someone_the_chat_never_mentions_is_not_used():
    """The walk: the title prompt produced an author's name that neither the question nor the
    answer contained. The question's key phrases are the title instead."""
    question = "What does MapReduce do with the intermediate values?"
    answer = "The reduce function merges together all intermediate values for a key."
    invented = FakeLLM(["Jeffrey Dean on MapReduce Intermediate Values"])
    assert chat_title(question, answer, invented) == key_phrase_title(question)
    said = FakeLLM(["MapReduce: Merging Intermediate Values"])  # "merges", any case or form
    assert chat_title(question, answer, said) == "MapReduce: Merging Intermediate Values"
    assert unsaid_names("An Overview of Reduce Functions by Dean", question, answer) == ["Dean"]
    # a title's own words, capitalised as a title writes them, are not names
    for title in ("MapReduce Intermediate Value Rules", "Reduce Function Duties",
                  "Python Reduce Conventions"):
        assert unsaid_names(title, question, answer) == [], title


def test_according_to_is_not_a_key_phrase():
    # Issue 66's fifth walk: "... according to the SSDF?" was titled "Organizations respond,
    # vulnerabilities according", the source it names cut off for a word of asking.
    question = "How should organizations respond to vulnerabilities according to the SSDF?"
    assert key_phrase_title(question) == "Organizations respond, vulnerabilities, SSDF"
