"""What a quote is: lists with their lead-in, and sentences that only announce are none."""

from __future__ import annotations

import pytest

from ragcore.llms.extractive.debris import is_filler
from ragcore.llms.extractive.text import candidates, list_unit

RULES = (
    "file_name: ch04-01-what-is-ownership.md\n\n"
    "### Ownership Rules\n\n"
    "First, let’s take a look at the ownership rules. Keep these rules in mind as we\n"
    "work through the examples that illustrate them:\n\n"
    "- Each value in Rust has an _owner_.\n"
    "- There can only be one owner at a time.\n"
    "- When the owner goes out of scope, the value will be dropped.\n\n"
    "### Variable Scope\n\n"
    "As a first example of ownership, we’ll look at the scope of some variables.\n"
)
ITEMS = ["Each value in Rust has an _owner_.", "There can only be one owner at a time.",
         "When the owner goes out of scope, the value will be dropped."]

# The Cybersecurity Framework as ragcore's PDF reader gives it: a bullet's wrapped lines and
# the paragraph after the list are not told apart by indentation.
CSF = (
    "file_name: NIST.CSWP.04162018.pdf\n\n"
    "• Informative References are specific sections of standards, guidelines, and practices\n"
    "common among critical infrastructure sectors that illustrate a method to achieve the\n"
    "outcomes associated with each Subcategory. The Informative References presented in the\n"
    "Framework Core are illustrative and not exhaustive. They are based upon cross-sector\n"
    "guidance most frequently referenced during the Framework development process.\n"
    "The five Framework Core Functions are defined below. These Functions are not intended to\n"
    "form a serial path or lead to a static desired end state. Rather, the Functions should be "
    "performed\n"
    "concurrently and continuously to form an operational culture that addresses the dynamic\n"
    "cybersecurity risk. See Appendix A for the complete Framework Core listing.\n"
)


def texts(context: str) -> list[str]:
    return [c.text for c in candidates(context)]


def test_list_items_are_candidates_and_know_the_sentence_that_introduces_them():
    cands = candidates(RULES)
    items = [c for c in cands if c.item]
    assert [c.text for c in items] == ITEMS
    lead = cands[items[0].lead]
    assert lead.text.endswith("illustrate them:") and lead.followers == [c.position for c in items]
    assert all(c.lead == lead.position for c in items)


@pytest.mark.parametrize("which", [0, 1, 2, "lead"])
def test_any_part_of_a_list_gives_the_whole_list_with_its_lead_in(which):
    cands = candidates(RULES)
    items = [c.position for c in cands if c.item]
    i = cands[items[0]].lead if which == "lead" else items[which]
    intro, listed = list_unit(cands, i)
    assert [cands[k].text for k in intro] == [
        "Keep these rules in mind as we work through the examples that illustrate them:"]
    assert [cands[k].text for k in listed] == ITEMS


def test_a_sentence_outside_any_list_is_its_own_unit():
    cands = candidates(RULES)
    last = len(cands) - 1
    assert list_unit(cands, last) == ([last], [])


@pytest.mark.parametrize(
    "sentence",
    [
        "The five Framework Core Functions are defined below.",
        "These components are explained below.",
        "See Appendix A for the complete Framework Core listing.",
        "This section describes the Implementation Tiers.",
        "The following table lists the Categories of each Function.",
        "Table 2 lists the Subcategories.",
        "The results are shown in Figure 3.",
        "The components are described in Section 2.",
        "First, let’s take a look at the ownership rules.",
        "In this chapter, you’ll learn ownership by working through some examples.",
        "Parts of ownership will be described in relation to the stack and the heap later in "
        "this chapter, so here is a brief explanation in preparation.",
    ],
)
def test_sentences_that_announce_or_point_elsewhere_are_filler(sentence):
    assert is_filler(sentence)
    assert texts(f"Tiers are levels of rigour. {sentence} Profiles align outcomes.") == [
        "Tiers are levels of rigour.", "Profiles align outcomes."]


@pytest.mark.parametrize(
    "sentence",
    [
        "The Framework Core elements work together as follows:",  # leads into a list
        "The five Functions, Identify-P, Govern-P, Control-P, Communicate-P, and Protect-P, "
        "defined below, can be used to manage privacy risks arising from data processing.",
        "This document describes zero trust for enterprise security architects.",
        "The rules are defined below the level of the kernel, in the drivers.",
        "Let the dough rise for an hour in a warm place.",
        "First, we cut the costs of the move by a third.",
    ],
)
def test_sentences_that_say_something_are_not_filler(sentence):
    assert not is_filler(sentence)


def test_a_sentence_after_filler_does_not_lean_on_the_sentence_before_the_filler():
    cands = candidates(CSF)
    these = next(c for c in cands if c.text.startswith("These Functions"))
    assert these.previous is None


def test_a_pdf_bullet_ends_where_its_last_line_ends_short():
    cands = candidates(CSF)
    assert not any("defined below" in c.text for c in cands)
    items = [c.text for c in cands if c.item]
    assert items[0].startswith("Informative References are specific sections")
    assert items[-1].startswith("They are based upon cross-sector guidance")
    prose = [c.text for c in cands if not c.item]
    assert prose[0].startswith("These Functions are not intended")


def test_a_pdf_bullet_runs_on_over_its_full_wrapped_lines():
    text = ("• Functions organize the basic cybersecurity activities at their highest level.\n"
            "These Functions are Identify, Protect, Detect, Respond, and Recover. They aid an\n"
            "organization in expressing its management of cybersecurity risk by organizing.\n"
            "information, enabling risk management decisions, addressing threats, and improving\n"
            "by learning from previous activities across the whole organization and partners.\n")
    assert all(c.item for c in candidates(text))


def test_a_figure_caption_is_not_the_heading_of_the_text_after_it():
    cands = candidates("2.1 Framework Core\nThe Core has four elements.\n"
                       "Figure 1: Framework Core Structure\nThe elements work together.\n")
    assert [c.section for c in cands] == ["2.1 Framework Core"] * 2
    assert cands[1].heading == "2.1 Framework Core"


def test_a_comment_in_code_is_no_markdown_heading():
    text = ("Hanging indents should add a level.\n\n"
            "   # Add 4 spaces (an extra level of indentation) to distinguish arguments\n"
            "# More indentation included to distinguish this from the rest.\n"
            "Spaces are the preferred indentation method.\n")
    assert {c.section for c in candidates(text)} == {""}


ROW = ("ID.RA-2: Cyber threat intelligence is received from information sharing forums and "
       "sources CIS CSC 4 COBIT 5 BAI08.01 ISA 62443-2-1:2009 4.2.3, 4.2.3.9, 4.2.3.12 ISO/IEC "
       "27001:2013 A.6.1.4 NIST SP 800-53 Rev. 4 SA-10, SI-7.")


@pytest.mark.parametrize(
    "debris",
    [ROW, "[12] Rose S, Borchert O (2020) Zero Trust Architecture. NIST SP 800-207.",
     "Available at https://doi.org/10.6028/NIST.SP.800-207 for everyone to read.",
     "Rose S, Borchert O, Mitchell S, Connelly S (2020) Zero Trust Architecture."],
)
def test_table_rows_and_references_are_no_candidates(debris):
    assert texts(f"Tiers are levels of rigour.\n\n{debris}\n\nProfiles align outcomes.") == [
        "Tiers are levels of rigour.", "Profiles align outcomes."]


@pytest.mark.parametrize(
    "prose",
    ["These games work on the 6th and 5th generation iPod Classic and the 5th and 4th iPod Nano.",
     "It was available at department stores including Macy's and Dillard's in 2005.",
     "RFC 3986 obsoletes RFC 2732, 2396 and 1808 and updates RFC 1738.",
     "Version 1.1 of the Framework was published on April 16, 2018."],
)
def test_sentences_with_numbers_are_candidates(prose):
    assert texts(prose) == [prose]


def test_a_long_sentence_with_brackets_and_pronunciation_is_prose():
    chopin = ("Frédéric François Chopin (/ˈʃoʊpæn/; French pronunciation: [fʁe.de.ʁik fʁɑ̃.swa "
              "ʃɔ.pɛ̃]; 22 February or 1 March 1810 – 17 October 1849), born Fryderyk Franciszek "
              "Chopin, was a Polish and French composer and a virtuoso pianist of the "
              "Romantic era.")
    sand = ("In 1836, at a party hosted by Marie d'Agoult, Chopin met the French author George "
            "Sand (born [Amantine] Aurore [Lucile] Dupin).")
    assert texts(f"{chopin} {sand}") == [chopin, sand]
    assert texts("tar [OPTION...] [FILE]... saves many files") == []


TENETS = ("A zero trust architecture is designed and deployed with adherence to the following "
          "zero trust\nbasic tenets:\n"
          "1. All data sources and computing services are considered resources. A network may "
          "be\ncomposed of multiple classes of devices. Also, an enterprise may decide to\n"
          "classify personally owned devices as resources.\n"
          "2. All communication is secured regardless of network location. Network location "
          "alone\ndoes not imply trust.\n"
          "3. Access is granted per session. These sessions are short.\n")


def test_a_list_of_long_items_quotes_the_gist_of_each_item():
    cands = candidates(TENETS)
    intro, items = list_unit(cands, 2)  # any sentence of the list gives the list
    assert [cands[i].text for i in intro] == [cands[0].text]
    assert [cands[i].text for i in items] == [
        "All data sources and computing services are considered resources.",
        "All communication is secured regardless of network location.",
        "Access is granted per session.",
        "These sessions are short."]  # leans on its item's first sentence
