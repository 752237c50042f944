"""What a source under an answer says it did, in a person's words (issue 57): "states this" only
where the shown answer carries its marker, and the sentence marked in it is the one stating the
claim, not the one the verdict's window was centred on."""

from __future__ import annotations

import re

import pytest

from ragcore.present.markers import CLOSEST, AnswerCheck, agreeing_use, mark_listing, renumber
from ragcore.present.sources import ListedSource, SourceListing, answer_sources
from ragcore.present.support import (
    NEAREST, NO_SUPPORT, NOT_QUOTED, QUOTED, SUPPORTS, SourceUse, cite,
)
from ragcore.types import Node, ScoredNode

FREE = "The source code is freely available [23]."
LINES = "The program is about 2000 lines of C++ and builds in under a minute."
PROGRAM = (f"The project began in 1994 at a small university lab in Helsinki. {FREE} {LINES} "
           "It runs on Linux, BSD and macOS without changes.")
NIST = ("NIST is a non-regulatory agency of the U.S. Department of Commerce. A record header is "
        "80 bytes long. The agency was founded in 1901.")
TRACE_WORDS = ("Support judged by", "Answered from", "MiniLM", "qwen", "supports the answer",
               "no supporting passage found")


def test_the_notes_are_a_persons_words():
    assert (SUPPORTS, NEAREST, NO_SUPPORT) == (
        "states this", "nearest to your question", "found by the search, not used")
    for note in (SUPPORTS, NEAREST, NO_SUPPORT, QUOTED, NOT_QUOTED, CLOSEST):
        assert not any(word in note for word in TRACE_WORDS)


def test_the_marked_sentence_is_the_one_stating_the_claim():
    # The verdict reads each sentence with its neighbours: the window centred on FREE holds
    # LINES too, and both windows vouch for the claim. Only LINES states it.
    citations = cite("The program is about 2000 lines of C++.", [PROGRAM], extractive=False,
                     question="How many lines of C++ is the program?")
    (use,) = citations.sources
    assert use.note == SUPPORTS
    assert [PROGRAM[a:b] for a, b in use.spans] == [LINES]


def test_a_markdown_heading_is_not_marked_for_the_sentence_under_it():
    passage = ("## Checksum Database\n\nThe checksum database is served at sum.golang.org, an "
               "address the go command asks for every module it downloads. Modules it has not "
               "seen are fetched from their origin.")
    citations = cite("The checksum database is served at sum.golang.org.", [passage],
                     extractive=False, question="What is the address of the checksum database?")
    (use,) = citations.sources
    assert [passage[a:b] for a, b in use.spans] == [
        "The checksum database is served at sum.golang.org, an address the go command asks for "
        "every module it downloads."]


def _listed(number: int, note: str, text: str = NIST) -> ListedSource:
    return ListedSource(number, ScoredNode(Node(text=text, node_id=f"n{number}"), 0.7),
                        SourceUse(((0, 20),) if note == SUPPORTS else (), note))


def test_a_source_the_answer_does_not_mark_never_says_it_states_this():
    listing = SourceListing((_listed(1, SUPPORTS), _listed(2, SUPPORTS)))
    cited_second = renumber(listing, [1])  # only the second source's marker is in the answer
    assert [(s.scored.node.node_id, s.use.note) for s in cited_second.shown] == [
        ("n2", SUPPORTS), ("n1", NO_SUPPORT)]
    assert cited_second.shown[1].use.spans == ()  # nothing of it tinted as used


@pytest.mark.parametrize("note", [NO_SUPPORT, NOT_QUOTED, ""])
def test_a_source_cited_for_a_sentence_the_answer_quotes_says_so(note):
    assert agreeing_use(SourceUse((), note), cited=True).note == QUOTED
    assert agreeing_use(SourceUse((), note), cited=True, quoted=False).note == CLOSEST
    assert agreeing_use(SourceUse((), NEAREST), cited=True).note == NEAREST


@pytest.mark.parametrize("answer, question", [
    ("**80 bytes**. A record header is 80 bytes long.", "How long is a record header?"),
    ("NIST has about 1,000 employees [1].", "How many employees does NIST have?"),
    ("Not found in the documents. A record header is 80 bytes long.",
     "How many employees does NIST have?"),
    ("**1901**. A record header is 80 bytes long.", "When was the agency founded?"),
    ("The program is about 2000 lines of C++.", "How many lines of C++ is the program?"),
])
def test_the_answer_and_its_sources_agree(answer, question):
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate([NIST, PROGRAM])]
    text, listing = mark_listing(answer, answer_sources(
        answer, nodes, retrieval_mode="similarity", extractive=False, question=question))
    marked = {int(n) for n in re.findall(r"\[(\d+)\]", text)}
    for source in (*listing.shown, *listing.hidden):
        if source.use.note == SUPPORTS:
            assert source.number in marked, (text, source)
        if source.number in marked:
            assert source.use.note in (SUPPORTS, QUOTED, NEAREST), (text, source)


# NIST SP 800-218 (the SSDF), pages 13 and 33, as the PDF reader gives them (the newcomer walk).
GROUPS = ("This document defines version 1.1 of the Secure Software Development Framework (SSDF)\n"
          "with fundamental, sound, and secure recommended practices based on established secure\n"
          "software development practice documents. The practices are organized into four groups:\n"
          "1. Prepare the Organization (PO): Organizations should ensure that their people,\n"
          "processes, and technology are prepared to perform secure software development at the\n"
          "organization level.")
TABLE_2 = ("Table 2 maps the subsections from\nSection 4e of the EO to SSDF practices and tasks "
           "that can help address each subsection as part of\na risk-based approach.\n"
           "Table 2: SSDF Practices Corresponding to EO 14028 Subsections\nEO 14028\nSubsection\n"
           "SSDF Practices and Tasks\n4e(i)(A) PO.5.1\n4e(i)(B) PO.5.1")
SSDF_QUESTION = "How many groups are the SSDF practices organized into?"


def _ssdf_sources() -> list[ScoredNode]:
    return [ScoredNode(Node(text=text, node_id=f"page{page}",
                            metadata={"file_name": "NIST.SP.800-218.pdf", "page": page}), score)
            for text, page, score in ((GROUPS, "13", 0.81), (TABLE_2, "33", 0.59))]


def _span(text: str, sentence: str) -> tuple[int, int]:
    start = text.index(sentence)
    return start, start + len(sentence)


def test_a_source_marked_for_its_wording_alone_is_not_said_to_be_quoted():
    """The walk: "quoted in the answer" on a Table-2 passage whose sentence the reply does not
    quote. The first sentence quotes page 13; the second only shares words with page 33."""
    reply = ("The practices are organized into four groups: PO, PS, PW and RV. Table 2 maps "
             "each subsection of the EO to the SSDF practices.")
    table_sentence = TABLE_2[:TABLE_2.index("approach.") + len("approach.")]
    # as ``cite`` leaves the passages when it checks no claim: their spans, no note yet
    uses = (SourceUse((_span(GROUPS, "The practices are organized into four groups:"),)),
            SourceUse((_span(TABLE_2, table_sentence),)))
    listing = SourceListing(tuple(ListedSource(n, scored, use) for n, (scored, use) in
                                  enumerate(zip(_ssdf_sources(), uses), 1)))
    text, numbered = mark_listing(reply, listing)
    assert text == ("The practices are organized into four groups: PO, PS, PW and RV. [1] Table 2 "
                    "maps each subsection of the EO to the SSDF practices. [2]")
    notes = {s.scored.node.node_id: s.use.note for s in numbered.shown}
    assert notes == {"page13": QUOTED, "page33": CLOSEST}, notes


def test_a_count_is_shown_with_the_sentence_stating_it_not_a_table_caption():
    """The walk's screen: "The SSDF practices are organized into four groups. “Table 2 maps
    the subsections ...” [1]", that source "quoted in the answer". The claim's facts are 4 and the
    name SSDF; the sentence stating four groups lacks the name its sentence before states, and
    "Section 4e ... SSDF practices" holds both (``answer_quotes._unstated``)."""
    checked = AnswerCheck(retrieval_mode="similarity")(
        "The SSDF practices are organized into four groups.", _ssdf_sources(),
        question=SSDF_QUESTION)
    assert "Table 2" not in checked.text, checked.text
    assert "\u201cThe practices are organized into four groups:\u201d" in checked.text
    notes = {s.scored.node.node_id: s.use.note for s in checked.listing.shown}
    assert notes["page33"] not in (QUOTED, SUPPORTS), notes
