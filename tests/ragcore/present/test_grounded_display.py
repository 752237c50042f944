"""What a person sees follows the grounding verdict: ragcore's markers on what the passages
state, a visible mark on what they do not, and for an unsupported answer not the answer but
what the documents do not say, first, and the passage nearest to the question."""

from __future__ import annotations

import io

import pytest

from ragcore.grounding.stating import reader_available
from ragcore.present.grounded import LISTED_LEAD, NEAREST_LEAD, NOT_CONFIRMED, UNSUPPORTED_MARK
from ragcore.present.markers import mark_listing
from ragcore.present.sources import answer_sources
from ragcore.present.support import NEAREST, NO_SUPPORT, SUPPORTS
from ragcore.types import Node, ScoredNode

SSDF = ("The practices are organized into four groups: Prepare the Organization (PO): "
        "Organizations should ensure that the organization's people are prepared. Protect the "
        "Software (PS): Organizations should protect all components of their software.")
NIST = ("NIST is a non-regulatory agency of the U.S. Department of Commerce. A record header is "
        "80 bytes long. The agency was founded in 1901.")


def shown_over(passages: list[str], answer: str, question: str):
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate(passages)]
    listing = answer_sources(answer, nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    return mark_listing(answer, listing)


def shown(answer: str, question: str):
    return shown_over([SSDF, NIST], answer, question)


def test_a_supported_answer_gets_ragcores_markers_not_the_models():
    text, listing = shown("**80 bytes**. A record header is 80 bytes long. Source 1.",
                          "How long is a record header?")
    assert text == "**80 bytes**. \u201cA record header is 80 bytes long.\u201d [1]"
    assert listing.shown[0].scored.node.node_id == "n1" and listing.shown[0].use.note == SUPPORTS


def test_a_factoid_is_shown_with_its_sentence_and_what_the_model_said_beyond_it_cited():
    # the model's words for the quote are left out; its supported sentence saying more stays,
    # cited on its own passage
    text, listing = shown("**80 bytes**. A record header is eighty bytes long. NIST is a "
                          "non-regulatory agency of the Department of Commerce.",
                          "How long is a record header?")
    assert listing.verdict.label == "supported"
    assert text == ("**80 bytes**. \u201cA record header is 80 bytes long.\u201d [1] NIST is a "
                    "non-regulatory agency of the Department of Commerce. [1]")


def test_an_invented_head_count_is_not_shown_as_an_answer():
    text, listing = shown("NIST has about 1,000 employees [1].",
                          "How many employees does NIST have?")
    first, _, rest = text.partition("\n\n")
    assert first == "The documents don't say how many employees NIST has."
    assert "1,000" not in text
    assert rest.startswith(NEAREST_LEAD) and "non-regulatory agency" in rest
    assert [s.use.note for s in listing.shown] == [NEAREST, NO_SUPPORT]
    assert all(s.use.note != SUPPORTS for s in (*listing.shown, *listing.hidden))


def test_a_partly_supported_answer_marks_the_invented_sentence_visibly():
    text, _ = shown("**1901**. The agency was founded in 1901 by Theodore Roosevelt.",
                    "When was the agency founded?")
    assert text == ("**1901**. \u201cThe agency was founded in 1901.\u201d [1] The agency was "
                    f"founded in 1901 by Theodore Roosevelt. {UNSUPPORTED_MARK}")


def test_each_list_item_is_cited_and_invented_items_are_marked():
    text, _ = shown("- Prepare the Organization (PO)\n- Protect the Software (PS)\n"
                    "- Secure Software Testing (ST)", "What are the groups of practices?")
    lines = text.splitlines()
    assert lines[0].endswith("(PO) [1]") and lines[1].endswith("(PS) [1]")
    assert lines[2].endswith(UNSUPPORTED_MARK)


def test_a_refusal_says_what_the_documents_do_not_say():
    text, _ = shown("Not found in the documents.\n\nThe closest passage says: \u201cNIST is\u201d",
                    "How many employees does NIST have?")
    assert text.startswith("The documents don't say how many employees NIST has.\n\n")


def test_the_cli_writes_the_checked_answer_never_the_draft():
    from ragcore.cli.render import write_reply
    from ragcore.synthesis import Response

    nodes = [ScoredNode(Node(text=NIST, node_id="n0"), 0.7)]
    response = Response(lambda: iter(["NIST has about ", "1,000 employees."]), source_nodes=nodes)
    out = io.StringIO()
    write_reply(out, response, question="How many employees does NIST have?")
    written = out.getvalue()
    assert written.startswith("The documents don't say how many employees NIST has.")
    assert "1,000" not in written and "supports the answer" not in written


def test_an_agent_answer_no_tool_showed_says_so_first():
    from ragcore.present import unobserved
    from ragcore.present.grounded import UNOBSERVED

    assert unobserved("Paris.").startswith(UNOBSERVED) and unobserved("Paris.").endswith("Paris.")
    # a marker of its own points at no source: left out
    assert unobserved("Paris [2].").endswith("Paris.")


def test_a_reply_that_read_no_passage_keeps_no_marker_of_its_own():
    from ragcore.present.grounded import UNREAD, unread

    assert unread("As we said, Paris [1].") == f"{UNREAD}\n\nAs we said, Paris."


def test_a_summary_nothing_supports_is_marked_not_refused():
    from ragcore.present.grounded import NOT_STATED

    text, _ = shown("The agency sells telescopes to farmers in Peru.", "Summarise.")
    assert text.startswith(NOT_STATED) and text.endswith(UNSUPPORTED_MARK)
    assert not text.startswith("The documents don't say")


def test_a_refusal_the_model_wrote_after_its_answer_is_left_out():
    text, _ = shown("**80 bytes**. Not found in the documents.", "How long is a record header?")
    assert "Not found" not in text and text.startswith("**80 bytes**.")


def test_a_bare_short_answer_is_shown_with_the_sentence_that_states_it():
    text, listing = shown("**80 bytes**.", "How long is a record header?")
    assert text == "**80 bytes**. \u201cA record header is 80 bytes long.\u201d [1]"
    assert listing.shown[0].scored.node.node_id == "n1"


def test_a_reply_without_passages_is_not_checked_against_nothing():
    listing = answer_sources("Hello! Paris is lovely.", [], retrieval_mode="similarity",
                             extractive=False, question="Where should I travel?")
    assert listing.verdict is None
    assert mark_listing("Hello! Paris is lovely.", listing)[0] == "Hello! Paris is lovely."


def test_a_short_answer_repeating_the_question_is_refused_and_the_refusal_says_why():
    text, _ = shown("**NIST**.", "What is the name of the agency that NIST belongs to?")
    first, _, rest = text.partition("\n\n")
    assert first.endswith("The answer written, \u201cNIST\u201d, only gives back a word of your "
                          "question, so it tells you nothing new.")
    assert first.startswith("The documents don't say") and rest.startswith(NEAREST_LEAD)


def test_above_its_own_sentence_stating_the_answer_it_gives_way_to_that_sentence():
    # the model restated the sentence that answers ("... of the U.S. Department of Commerce")
    # under a bold echo of the question: with the reader, that sentence is what is shown
    text, _ = shown("**NIST**. NIST is a non-regulatory agency.",
                    "What is the name of the agency that NIST belongs to?")
    if not reader_available():
        pytest.skip("the reader's weights")
    assert text.startswith("**The documents say:** \u201cNIST is a non-regulatory agency of the "
                           "U.S. Department of Commerce.\u201d [1]")
    assert "\u201cNIST\u201d, is not the answer this sentence gives" in text


def test_a_money_question_answered_without_money_says_what_was_missing():
    text, _ = shown("**80 bytes**. A record header is 80 bytes long.",
                    "How much does a record header cost?")
    first = text.partition("\n\n")[0]
    assert first == ("The documents don't say how much a record header costs. The answer "
                     "written, \u201c80 bytes\u201d, is not a sum of money.")


WORKSHOP = ("In response to Section 4 of Executive Order (EO) 14028 on \u201cImproving the "
            "Nation\u2019s Cybersecurity,\u201d NIST held a workshop. NIST held a June 2021 "
            "workshop and received over 150 position papers. Many suggested practices.")


def test_a_short_answer_is_quoted_with_the_sentence_that_states_it():
    text, _ = shown_over([WORKSHOP], "**150**. Not found in the documents.",
                         "How many position papers did NIST get for its workshop?")
    assert text == ("**150**. \u201cNIST held a June 2021 workshop and received over 150 "
                    "position papers.\u201d [1]")


def test_a_factoid_written_around_with_unconfirmed_words_shows_its_sentence_instead():
    text, listing = shown_over(
        [WORKSHOP], "**150**. The papers came from many organizations around the world.",
        "How many position papers did NIST get for its workshop?")
    assert [(c.supported, c.refuted) for c in listing.verdict.claims] == [(True, False),
                                                                         (False, False)]
    assert text.startswith("**150**. \u201cNIST held a June 2021 workshop")
    assert "around the world" not in text


def test_the_quoted_sentence_is_the_one_stating_the_answer_beside_the_window_found():
    from ragcore.grounding.claims import claims_of, sentence_spans
    from ragcore.grounding.verdict import ClaimCheck
    from ragcore.present.grounded import _with_its_sentence
    from ragcore.present.sources import ListedSource

    claim = claims_of("**150**.")[0]
    first = sentence_spans(WORKSHOP)[0]  # the window's centre: its neighbour states 150
    listing = answer_sources("**150**.", [ScoredNode(Node(text=WORKSHOP, node_id="n0"), 0.7)],
                             retrieval_mode="similarity", extractive=False, question="")
    listed: list[ListedSource] = [*listing.shown, *listing.hidden]
    shown_text, order = _with_its_sentence(ClaimCheck(claim, True, 0.9, ((0, first),)), listed,
                                           lambda n: f"[{n}]", "How many position papers?")
    assert "received over 150 position papers" in shown_text and order == (0,)


def test_a_short_answer_naming_what_was_asked_about_is_not_quoted_for():
    agency = ("ARPA-H will have a singular purpose. \u2026 ARPA-H is the Advanced Research "
              "Projects Agency for Health.")
    text, _ = shown_over([agency], "**ARPA-H**. ARPA-H is a new government agency that drives "
                                   "research.", "What is ARPA-H?")
    assert "\u201c" not in text and "singular purpose" not in text  # the answer, not a quote


def test_a_factoid_whose_short_answer_is_unconfirmed_says_so_first():
    from dataclasses import replace

    from ragcore.grounding.claims import claims_of
    from ragcore.grounding.verdict import PARTLY, ClaimCheck, Verdict
    from ragcore.present.grounded import grounded_text

    answer = ("**1234**. The HTTP protocol does not place any a priori limit on the length of "
              "a URI.")
    lead, rest = claims_of(answer)
    rfc = "The HTTP protocol does not place any a priori limit on the length of a URI."
    _, listing = shown_over([rfc], answer, "What is the maximum total length of a URI?")
    listing = replace(listing, verdict=Verdict(PARTLY, (
        ClaimCheck(lead, False, 0.5), ClaimCheck(rest, True, 0.9, ((0, (0, len(rfc))),)))))
    listed = [*listing.shown, *listing.hidden]
    text, _ = grounded_text(answer, listing, listed, lambda n: f"[{n}]")
    assert text.startswith(NOT_CONFIRMED) and text.endswith("a URI. [1]")
    summary = replace(listing, question="Summarise the limits on URIs.")  # no banner
    assert not grounded_text(answer, summary, listed, lambda n: f"[{n}]")[0].startswith(
        NOT_CONFIRMED)


def test_an_answer_with_nothing_to_check_is_not_shown_as_checked():
    pep = ("Never use the characters 'l' (lowercase letter el), 'O' (uppercase letter oh), or "
           "'I' (uppercase letter eye) as single character variable names.")
    text, listing = shown_over([pep], "- l\n- O\n- I",
                               "Which single-character variable names should never be used?")
    assert listing.verdict.label == "empty"
    # not vouched for; shown with the documents' own words for the items, cited
    assert text == f"{NOT_CONFIRMED}\n\n- l\n- O\n- I\n\n{LISTED_LEAD} \u201c{pep}\u201d [1]"
    # items no one sentence holds, or a sentence without the question's words: no quote
    other = "Use 'l' sparingly. Avoid 'O' and 'I' in fonts where they look like digits."
    assert shown_over([other], "- l\n- O\n- I",
                      "Which single-character variable names should never be used?")[0] == (
        f"{NOT_CONFIRMED}\n\n- l\n- O\n- I")
    assert shown_over([pep], "- l\n- O\n- I", "Which symbols are banned?")[0] == (
        f"{NOT_CONFIRMED}\n\n- l\n- O\n- I")


def test_an_unconfirmed_short_answer_is_shown_with_the_sentence_mentioning_it():
    from dataclasses import replace

    from ragcore.grounding.claims import claims_of
    from ragcore.grounding.verdict import PARTLY, UNVERIFIED, ClaimCheck, Verdict
    from ragcore.present.grounded import LOCATED_LEAD, grounded_text

    pep = ("Blank Lines. Surround top-level function and class definitions with two blank "
           "lines. Method definitions inside a class are surrounded by a single blank line.")
    other = "Two spaces follow a sentence-ending period in comments."
    question = "How many blank lines should surround top-level function and class definitions?"
    answer = "**2**. **Blank Lines**."
    lead, rest = claims_of(answer)
    _, listing = shown_over([other, pep], answer, question)
    listed = [*listing.shown, *listing.hidden]
    at = next(i for i, s in enumerate(listed) if s.scored.node.text == pep)
    for verdict in (Verdict(UNVERIFIED, (ClaimCheck(lead, False, 0.5),
                                         ClaimCheck(rest, False, 0.5))),
                    Verdict(PARTLY, (ClaimCheck(lead, False, 0.5),
                                     ClaimCheck(rest, True, 0.9, ((at, (0, 12)),))))):
        text, order = grounded_text(answer, replace(listing, verdict=verdict), listed,
                                    lambda n: f"[{n}]")
        assert text.startswith(NOT_CONFIRMED)  # not vouched for: said first, still
        assert text.endswith(f"{LOCATED_LEAD} \u201cSurround top-level function and class "
                             f"definitions with two blank lines.\u201d [1]")
        assert order == (at,)
    # a sentence holding the answer but none of the question's words is no place to check it
    _, listing = shown_over([other], answer, question)
    text, _ = grounded_text(answer, replace(listing, verdict=Verdict(UNVERIFIED, (
        ClaimCheck(lead, False, 0.5), ClaimCheck(rest, False, 0.5)))),
        [*listing.shown, *listing.hidden], lambda n: f"[{n}]")
    assert LOCATED_LEAD not in text


@pytest.mark.parametrize("passage, answer, question, wanted", [
    # a number in digits, quoted with the sentence spelling it
    ("Blank Lines. Surround top-level function and class definitions with two blank lines. "
     "Method definitions inside a class are surrounded by a single blank line.", "**2**.",
     "How many blank lines should surround top-level function and class definitions?",
     "**2**. \u201cSurround top-level function and class definitions with two blank "
     "lines.\u201d [1]"),
    # the sentence whole across a wrapped line
    ("Note that we specify `char` literals with single quotation marks. Rust's `char` type is "
     "4\nbytes in size and represents a Unicode scalar value.", "**4**.",
     "How big is a char in Rust?",
     "**4**. \u201cRust's `char` type is 4 bytes in size and represents a Unicode scalar "
     "value.\u201d [1]"),
    # a line of dialogue quoted once
    ("The inspector laughed. \u201cWell, I have been twenty-seven years in the force, but this "
     "really takes the cake.\u201d", "**27 years**.",
     "How many years had the inspector been in the force?",
     "**27 years**. \u201cWell, I have been twenty-seven years in the force, but this really "
     "takes the cake.\u201d [1]"),
    # the sentence reader's gap joins a sentence to the underline before it: still whole
    ("Blank Lines\n----------- \u2026 Surround top-level function and class definitions with "
     "two blank\nlines. \u2026 Method definitions inside a class are surrounded by a single "
     "blank\nline.", "**2**.",
     "How many blank lines should surround top-level function and class definitions?",
     "**2**. \u201cSurround top-level function and class definitions with two blank "
     "lines.\u201d [1]"),
], ids=["number-in-words", "wrapped-line", "dialogue", "after-a-gap"])
def test_a_short_answer_is_shown_with_its_whole_sentence_quoted_once(passage, answer, question,
                                                                      wanted):
    assert shown_over([passage], answer, question)[0] == wanted



def test_a_short_answer_is_quoted_with_the_sentence_holding_most_of_the_question():
    keyword = ("When a conditional is long, a two character keyword plus a single space plus "
               "an opening parenthesis makes a natural indent.")
    blank = "Surround top-level function and class definitions with two blank lines."
    question = "How many blank lines should surround top-level function and class definitions?"
    from ragcore.grounding.claims import claims_of
    from ragcore.grounding.verdict import ClaimCheck
    from ragcore.present.grounded import _with_its_sentence

    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.7) for i, t in enumerate([keyword,
                                                                                    blank])]
    listing = answer_sources("**2**.", nodes, retrieval_mode="similarity", extractive=False,
                             question=question)
    listed = [*listing.shown, *listing.hidden]
    at = next(i for i, s in enumerate(listed) if s.scored.node.text == keyword)
    # the verdict found the number in the keyword's sentence only (its cosine ranked it first)
    check = ClaimCheck(claims_of("**2**.")[0], True, 0.9, ((at, (0, len(keyword))),))
    shown_text, order = _with_its_sentence(check, listed, lambda n: f"[{n}]", question)
    assert shown_text == f"**2**. \u201c{blank}\u201d [1]"
    assert listed[order[0]].scored.node.text == blank


def test_a_guess_the_model_itself_disowned_is_not_shown_as_an_answer():
    toc = ("A URI can be represented in a variety of ways. 47 A. Collected ABNF for URI. "
           "48 B. Parsing a URI Reference with a Regular Expression.")
    question = "What is the maximum total length of a URI?"
    text, listing = shown_over([toc], "**47**. Not found in the documents.", question)
    assert listing.verdict.label != "supported"
    assert text.startswith("The documents don't say what the maximum total length of a URI is. "
                           "The answer written, \u201c47\u201d, is the model's guess")
    assert "**47**" not in text and NOT_CONFIRMED not in text
    # a short answer the passages state stays the answer, the model's slip dropped
    text, listing = shown("**80 bytes**. Not found in the documents.",
                          "How long is a record header?")
    assert listing.verdict.label == "supported"
    assert text == "**80 bytes**. \u201cA record header is 80 bytes long.\u201d [1]"


def test_an_acronym_the_answer_does_not_expand_as_the_documents_do_is_spelled_out_below():
    from ragcore.present.grounded import SPELLED_LEAD

    footnote = ("1 SDLC is also widely used for \u201csystem development life cycle.\u201d All "
                "usage of \u201cSDLC\u201d in this document is referencing software.")
    defined = ("A software development life cycle (SDLC)1 is a formal or informal methodology "
               "for designing, creating, and maintaining software.")
    question = "What does SDLC stand for in the SSDF document?"
    answer = "**SDLC**. SDLC is also widely used for \u201csystem development life cycle.\u201d"
    text, listing = shown_over([footnote, defined], answer, question)
    assert text.endswith(f"\n\n{SPELLED_LEAD} \u201c{defined}\u201d [2]")
    assert [s.scored.node.node_id for s in listing.shown][:2] == ["n0", "n1"]
    right = "**software development life cycle**. The SDLC is a methodology."
    assert SPELLED_LEAD not in shown_over([footnote, defined], right, question)[0]
    # another question, or passages that never spell it out: nothing added
    assert SPELLED_LEAD not in shown_over([footnote, defined], answer, "What is the SDLC?")[0]
    assert SPELLED_LEAD not in shown_over([footnote], answer, question)[0]


def test_the_nearest_sentence_of_a_hard_wrapped_passage_is_quoted_whole():
    # sentences kept by a reading budget, joined by " \u2026 ", over hard-wrapped lines
    pep = ("Please see the\ncompanion informational PEP describing style guidelines for the C "
           "code. \u2026 This document and PEP 257 were adapted from\nGuido's original Python "
           "Style Guide essay, with some additions from\nBarry's style guide.")
    text, _ = shown_over([pep], "**2001**. Guido wrote the essay in 2001.",
                         "In what year was Guido's original style guide essay written?")
    assert text.endswith(f"\n\n{NEAREST_LEAD} \u201cThis document and PEP 257 were adapted from "
                         "Guido's original Python Style Guide essay, with some additions from "
                         "Barry's style guide.\u201d [1]")


def test_a_short_answer_of_several_numbers_is_quoted_with_the_sentence_spelling_them():
    # five words with its numbers, three without: a short answer still, quoted with the
    # sentence that states it in words; the sentence's own quotation nested in single marks
    passage = ("\u201cAnd for present expenses?\u201d The King took a heavy chamois leather bag "
               "from under his cloak and laid it on the table. \u201cThere are three hundred "
               "pounds in gold and seven hundred in notes,\u201d he said.")
    text, _ = shown_over([passage], "**300 pounds in gold and 700 in notes**. The King laid a "
                         "bag on the table.", "How much money did the King give for expenses?")
    assert text.startswith(
        "**300 pounds in gold and 700 in notes**. \u201c\u2018There are three hundred pounds in "
        "gold and seven hundred in notes,\u2019 he said.\u201d [1]")
