"""Citation markers in one format: every way a model cites becomes "[1]" / "[1] [2]", ordinary
parentheses stay as they are, invented numbers go, and cutting the stream changes nothing."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.prompts.citation_marks import normalise_citations, normalised_citations


@pytest.mark.parametrize("written, expected", [
    ("**Oslo**. Source 1.", "**Oslo**. [1]"),
    ("Herons nest in trees Source 1.", "Herons nest in trees [1]."),
    ("Herons nest in trees. Source 1:", "Herons nest in trees. [1]"),
    ("Herons nest in trees (Source 1).", "Herons nest in trees [1]."),
    ("Herons nest in trees [Source 1].", "Herons nest in trees [1]."),
    ("Herons nest in trees [Source: 1].", "Herons nest in trees [1]."),
    ("Herons nest in trees (1).", "Herons nest in trees [1]."),
    ("Herons nest in trees [1, 2].", "Herons nest in trees [1] [2]."),
    ("Herons nest in trees [1][2].", "Herons nest in trees [1] [2]."),
    ("Herons nest in trees. Sources 1 and 2.", "Herons nest in trees. [1] [2]"),
    ("Herons nest in trees [^1].", "Herons nest in trees [1]."),
    ("Herons nest in trees \u30101\u3011.", "Herons nest in trees [1]."),
    ("Herons nest in trees (Sources 1, 3).", "Herons nest in trees [1] [3]."),
    ("Herons nest in trees [1].", "Herons nest in trees [1]."),
    ("Herons nest in trees [1] [2].", "Herons nest in trees [1] [2]."),
    ("Herons nest (1, 2), and owls hunt [3; 1].", "Herons nest [1] [2], and owls hunt [3] [1]."),
    ("Source 1 and Source 3 agree: herons nest.", "[1] [3] agree: herons nest."),
    ("Sources 1, 2, and 3 say so.", "[1] [2] [3] say so."),
    ("Herons nest [1][1].", "Herons nest [1]."),
    ("Herons nest in trees (1). Owls hunt at night (2).",
     "Herons nest in trees [1]. Owls hunt at night [2]."),
    ("Source 1: herons nest.\nSource 2: owls hunt.", "[1] herons nest.\n[2] owls hunt."),
])
def test_every_way_of_citing_becomes_numbers_in_brackets(written, expected):
    assert normalise_citations(written, sources=3) == expected
    assert normalise_citations(written) == expected


@pytest.mark.parametrize("text", [
    "(1) first, (2) second",
    "Do it in order: first (1), second (2), third (3).",
    "RFC 2616 (1999).",
    "RFC 2616 (1999)",
    "See Section 3.2 (2).",
    "Repeat Step (2).",
    "f(1) = 2.",
    "(1).",
    "Open source 3D printing. The source 1.2 release.",
    "Sources say herons nest; a source, 1 of many.",
    "Links stay: [7](https://example.org).",
    "Zero is no source: a[0].",
    "Sherlock said so.",
])
def test_parentheses_and_numbers_that_are_not_citations_stay(text):
    assert normalise_citations(text, sources=3) == text
    assert normalise_citations(text) == text


def test_numbers_above_the_sources_given_are_dropped():
    assert normalise_citations("Herons nest [7].", sources=3) == "Herons nest."
    assert normalise_citations("Herons nest [2][7] in trees.", sources=3) == (
        "Herons nest [2] in trees.")
    assert normalise_citations("Herons nest (Sources 1, 9).", sources=3) == "Herons nest [1]."
    assert normalise_citations("**Oslo**. Source 4.", sources=3) == "**Oslo**."
    # When the count is not known, every number is kept.
    assert normalise_citations("Herons nest [7].") == "Herons nest [7]."


def test_a_bare_parenthesised_number_above_the_sources_is_not_a_citation():
    assert normalise_citations("Herons nest (7).", sources=3) == "Herons nest (7)."


def test_the_number_of_sources_must_be_a_count():
    for bad in (-1, 2.0, True, "3"):
        with pytest.raises(ValueError, match="sources"):
            normalise_citations("x", sources=bad)


def test_the_stream_holds_back_only_what_may_become_a_marker():
    read = []

    def chunks():
        for chunk in ("Herons nest in trees ", "(Source", " 1). Owls ", "hunt", " at night."):
            read.append(chunk)
            yield chunk

    out = []
    for piece in normalised_citations(chunks(), sources=2):
        out.append((piece, len(read)))
    assert out == [("Herons nest in trees", 1), (" [1]. Owls", 3), (" hunt", 4),
                   (" at night.", 5)]


# Whole citations and near misses, and the pieces they are made of, so that random texts hold
# markers cut at every place, sentence ends before them, lists and numbers that only look alike.
FRAGMENTS = ["Source 1", " Source 2.", "Sources 1 and 3", "(Source 2)", " (1).", " (2),", "[1][2]",
             "[1, 7]", "[^1]", "\u30102\u3011", "(1) first", "Section 3.2 (2).", "Herons nest",
             "**Oslo**.", ". ", "Source", "Sources", "source", " ", "(", ")", "[", "]", "^", "1",
             "2", "7", "0", "1999", ",", ";", ".", ":", " and ", "&", "#", "\n", "Step", "s", "x"]


@st.composite
def chunked_texts(draw):
    """A text made of citation-like fragments, and one way of cutting it into chunks."""
    text = "".join(draw(st.lists(st.sampled_from(FRAGMENTS), max_size=40)))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=12)))
    bounds = [0, *cuts, len(text)]
    return text, [text[a:b] for a, b in zip(bounds, bounds[1:])]


@settings(max_examples=600, deadline=None)
@given(chunked_texts(), st.one_of(st.none(), st.integers(0, 4)))
def test_cutting_the_stream_never_changes_the_result(chunked, sources):
    text, chunks = chunked
    assert "".join(normalised_citations(chunks, sources=sources)) == (
        normalise_citations(text, sources=sources))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), st.integers(1, 5))
def test_any_text_streamed_a_character_at_a_time_gives_the_same(text, sources):
    assert "".join(normalised_citations(list(text), sources=sources)) == (
        normalise_citations(text, sources=sources))


@settings(max_examples=300, deadline=None)
@given(chunked_texts())
def test_normalising_twice_changes_nothing(chunked):
    # The synthesizer and the citation engine may both normalise one answer. (Without a count:
    # a dropped number can bring together what stood around it, "Sources [7] 2".)
    once = normalise_citations(chunked[0])
    assert normalise_citations(once) == once
