"""Markers are stable while an answer streams: a sentence marked once keeps its marker and its
number as more text arrives (numbers go by first use, so a later sentence never renumbers an
earlier one)."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from ragcore.present.markers import mark_answer
from ragcore.present.quotes import sentence_spans
from ragcore.present.support import cite

PASSAGES = [
    "Tabs are discouraged. Use four spaces per indentation level in new code.",
    "Limit all lines to a maximum of 79 characters. Long lines are hard to read in a diff.",
    "Imports go at the top of the file. Group them by standard library, then third party.",
]
ANSWER = ("Extractive answer (no language model configured): quoted from the documents, best "
          "match first:\n\n- Limit all lines to a maximum of 79 characters.\n"
          "- Use four spaces per indentation level in new code.\n"
          "- Long lines are hard to read in a diff.\n"
          "- Imports go at the top of the file.")
USES = cite(ANSWER, PASSAGES, extractive=True).sources


def test_the_final_answer_is_marked_after_each_quote_in_order_of_first_use():
    marked = mark_answer(ANSWER, PASSAGES, USES)
    assert marked.text.endswith("79 characters. [1]\n- Use four spaces per indentation level in "
                                "new code. [2]\n- Long lines are hard to read in a diff. [1]\n"
                                "- Imports go at the top of the file. [3]")
    assert marked.order == (1, 0, 2)


def test_each_prefix_at_a_sentence_end_marks_as_the_final_text_does():
    final = mark_answer(ANSWER, PASSAGES, USES).text
    for _, end in sentence_spans(ANSWER):
        assert final.startswith(mark_answer(ANSWER[:end], PASSAGES, USES).text)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(ANSWER) - 1), max_size=12))
def test_numbers_shown_mid_stream_never_change_later(cuts):
    final = mark_answer(ANSWER, PASSAGES, USES)
    for end in sorted(set(cuts)):  # the text so far, cut anywhere (even inside a word)
        shown = mark_answer(ANSWER[:end], PASSAGES, USES)
        assert final.order[:len(shown.order)] == shown.order
