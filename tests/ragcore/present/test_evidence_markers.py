"""Inline markers [1] [2]: after the sentences a source supports, numbered in order of first use."""

from ragcore.present.markers import mark_answer, renumber, sentence_sources
from ragcore.present.sources import list_sources
from ragcore.present.support import Citations, SourceUse, cite
from ragcore.types import Node, ScoredNode

PASSAGES = [
    "Tabs are discouraged. Use four spaces per indentation level in new code.",
    "Limit all lines to a maximum of 79 characters. Long lines are hard to read.",
    "The weather was fine that day. Nobody asked about it.",
]


def test_extractive_quotes_are_marked_with_their_source_in_order_of_first_use():
    answer = ("Limit all lines to a maximum of 79 characters. "
              "Use four spaces per indentation level in new code.")
    citations = cite(answer, PASSAGES, extractive=True)
    marked = mark_answer(answer, PASSAGES, citations.sources)
    # the second passage is quoted first, so it is [1]
    assert marked.text == ("Limit all lines to a maximum of 79 characters. [1] "
                           "Use four spaces per indentation level in new code. [2]")
    assert marked.order == (1, 0)


def test_a_sentence_no_source_supports_gets_no_marker():
    answer = ("Use four spaces per indentation level in new code. "
              "The moon is made of green cheese entirely.")
    citations = cite(answer, PASSAGES, extractive=False)
    marked = mark_answer(answer, PASSAGES, citations.sources,
                         unsupported=citations.unsupported)
    assert marked.text == ("Use four spaces per indentation level in new code. [1] "
                           "The moon is made of green cheese entirely.")
    assert marked.order == (0,)


def test_a_generated_sentence_is_marked_with_the_source_that_supports_it():
    answer = "Lines should be limited to a maximum of 79 characters, since long lines are hard."
    uses = [SourceUse(()), SourceUse(((0, 47),), "supports the answer"), SourceUse(())]
    found = sentence_sources(answer, PASSAGES, uses)
    assert [origins for _, origins in found] == [(1,)]
    assert mark_answer(answer, PASSAGES, uses).text.endswith("hard. [1]")


def test_a_sentence_used_by_two_sources_carries_both_numbers():
    passages = ["Alpha beta gamma delta.", "Alpha beta gamma delta."]
    answer = "Alpha beta gamma delta."
    citations = cite(answer, passages, extractive=True)
    marked = mark_answer(answer, passages, citations.sources)
    assert marked.text == "Alpha beta gamma delta. [1] [2]"


def test_no_use_no_markers():
    answer = "Nothing here comes from a passage at all."
    uses = [SourceUse(()) for _ in PASSAGES]
    assert mark_answer(answer, PASSAGES, uses).text == answer


def _scored(text: str, score: float) -> ScoredNode:
    return ScoredNode(Node(text=text, metadata={"file_name": "pep8.txt"}), score)


def test_sources_are_renumbered_to_match_the_markers_cited_first():
    answer = "Limit all lines to a maximum of 79 characters."
    nodes = [_scored(p, s) for p, s in zip(PASSAGES, (0.9, 0.8, 0.1))]
    citations = cite(answer, PASSAGES, extractive=True)
    listing = list_sources(nodes, citations, retrieval_mode="similarity")
    marked = mark_answer(answer, PASSAGES, citations.sources)
    numbered = renumber(listing, marked.order)
    assert [s.number for s in numbered.shown] == [1, 2]
    assert numbered.shown[0].scored.node.text == PASSAGES[1]  # the cited one is [1]
    assert numbered.shown[1].scored.node.text == PASSAGES[0]
    assert [s.number for s in numbered.hidden] == [3]


def test_citations_with_no_sources_are_left_alone():
    assert mark_answer("Some answer text here.", [], Citations(()).sources).order == ()
