"""A list told in prose ("four common sense steps ... First, ... Second – ...") is read with
all its items, each the document's own sentence citing the chunk it comes from."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.readers import load_file
from ragcore.retrieval.ordinals import ORDINAL_SUFFIX, OrdinalItems, ordinal
from ragcore.types import Document, ScoredNode

SPEECH = Path("/work/shared/corpus/state_of_the_union/state_of_the_union.txt")
STEPS = "What are the four steps for moving forward safely on COVID-19?"


@pytest.mark.parametrize("sentence, place", [
    ("First, stay protected with vaccines and treatments.", 1),
    ("Second \u2013 we must prepare for new variants.", 2),
    ("And fourth, let\u2019s end cancer as we know it.", 4),
    ("Third: support our veterans.", 3),
    ("First of all, thank you.", 1),
    ("First Lady Jill Biden is here tonight.", None),
    ("The first step is the hardest.", None),
])
def test_a_sentence_opening_with_an_ordinal_gives_its_place(sentence, place):
    assert ordinal(sentence) == place


@pytest.fixture(scope="module")
def speech():
    return VectorStoreIndex.from_documents(load_file(SPEECH), embedder=FakeEmbedder())


def holding(index, words: str) -> ScoredNode:
    node = next(n for n in index.all_nodes() if words in n.text)
    return ScoredNode(node, 0.5)


def test_the_speechs_four_steps_are_read_whole(speech):
    first = holding(speech, "First, stay protected with vaccines")
    assert "Second" not in first.node.text  # the chunk holds the first step alone
    read = OrdinalItems(speech).postprocess([first], STEPS)
    assert read[0] == first
    assert [r.node.text for r in read[1:]] == [
        "Second \u2013 we must prepare for new variants.",
        "Third \u2013 we can end the shutdown of schools and businesses.",
        "Fourth, we will continue vaccinating the world.",
    ]
    for place, item in enumerate(read[1:], start=2):
        source = speech.get_node(item.node.node_id.removesuffix(f"{ORDINAL_SUFFIX}{place}"))
        assert item.node.ref_doc_id == source.ref_doc_id and item.score == first.score
        at = item.node.start_char - source.start_char
        assert source.text[at:at + len(item.node.text)] == item.node.text  # cites its place


def test_the_count_announced_ends_the_walk(speech):
    agenda = holding(speech, "First, beat the opioid epidemic.")
    read = OrdinalItems(speech).postprocess([agenda], "What four big things are in the Unity "
                                                      "Agenda?")
    texts = [r.node.text for r in read[1:]]
    assert texts[0].startswith("Second, let\u2019s take on mental health.")
    assert texts[1:] == ["Third, support our veterans.",
                         "And fourth, let\u2019s end cancer as we know it."]
    # an item cut from the chunk as read (a reading budget) is read again from the chunk
    trimmed = ScoredNode(type(agenda.node)(**{**agenda.node.to_dict(),
                                              "text": "First, beat the opioid epidemic."}), 0.5)
    cut = OrdinalItems(speech).postprocess([trimmed], "What four big things are in the Unity "
                                                      "Agenda?")
    assert [r.node.text for r in cut[1:]] == texts


def test_other_questions_and_passages_pass_unchanged(speech):
    first = holding(speech, "First, stay protected with vaccines")
    assert OrdinalItems(speech).postprocess([first], "How do we stay protected?") == [first]
    elsewhere = holding(speech, "Putin\u2019s war")
    assert OrdinalItems(speech).postprocess([elsewhere], STEPS) == [elsewhere]


def test_a_list_with_no_count_is_followed_a_short_way():
    far = " ".join(f"Filler sentence number {n} says nothing at all." for n in range(200))
    text = f"Some advice. First, rest well. {far} Second, eat well."
    index = VectorStoreIndex.from_documents([Document(text, doc_id="d")],
                                            embedder=FakeEmbedder())
    first = holding(index, "First, rest well.")
    assert OrdinalItems(index).postprocess([first], "Which rules are given?") == [first]
    assert [r.node.text for r in OrdinalItems(index, walked_chars=10**6).postprocess(
        [first], "Which rules are given?")][1:] == ["Second, eat well."]


def test_the_engines_read_the_later_steps(speech):
    from ragcore.engines.from_index import reading_postprocessors
    from ragcore.query import apply_postprocessors

    postprocessors = reading_postprocessors(speech, (), ExtractiveLLM())
    assert any(isinstance(p, OrdinalItems) for p in postprocessors)
    first = holding(speech, "First, stay protected with vaccines")
    read = apply_postprocessors(postprocessors, [first], STEPS, None)
    assert "Fourth, we will continue vaccinating the world." in [r.node.text for r in read]
