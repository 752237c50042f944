"""``card_of`` on small texts: each source of each field, and the fields left empty when the
document does not give them."""

from __future__ import annotations

import pytest

from ragcore.cards import DocumentCard, card_from_metadata, card_metadata, card_of, card_text
from ragcore.cards.card import ABSTRACT_CHARS
from ragcore.cards.names import is_person_name, split_names

TITLE_PAGE = """\
This publication is available free of charge from:
https://doi.org/10.1000/example
NIST Special Publication 800-999
Guide to Counting
Owls at Night
Jane Q. Public
Computer Security Division
John Smith*
* Former employee.
March 2023
"""

PAPER = TITLE_PAGE + """
Reports on Computer Systems Technology
The laboratory promotes the economy by providing technical leadership for measurement.
Abstract
Owls are counted at night by their calls. This guide says how, and how often, and what
to do when two owls answer at once.
Keywords
owls; counting; night.
"""


def test_a_title_page_gives_title_names_date_kind_and_abstract():
    card = card_of(PAPER)
    assert card.title == "Guide to Counting Owls at Night"
    assert card.authors == ("Jane Q. Public", "John Smith")  # the affiliation is skipped
    assert (card.date, card.kind) == ("March 2023", "NIST Special Publication 800-999")
    assert card.abstract == ("Owls are counted at night by their calls. This guide says how, "
                             "and how often, and what to do when two owls answer at once.")


def test_a_pdfs_declared_title_and_people_win_over_the_page():
    card = card_of(PAPER, {"title": "Counting Owls", "author": "Ann Lee; Bo Chen",
                           "created": "2023-02-27"})
    assert (card.title, card.authors, card.date) == ("Counting Owls", ("Ann Lee", "Bo Chen"),
                                                     "March 2023")


@pytest.mark.parametrize("junk", ["Microsoft Word - owls.docx", "untitled", "owls.pdf",
                                  "owls", "C:\\drafts\\owls"])
def test_a_placeholder_pdf_title_gives_way_to_the_title_page(junk):
    assert card_of(PAPER, {"title": junk, "file_name": "owls.pdf"}).title == \
        "Guide to Counting Owls at Night"


def test_an_organization_as_declared_author_only_when_the_page_names_nobody():
    text = "Guide to Counting Owls\n\nOwls are counted at night, by ear, every spring."
    declared = {"author": "National Institute of Standards and Technology"}
    assert card_of(text, declared).authors == ("National Institute of Standards and Technology",)
    assert card_of(PAPER, declared).authors == ("Jane Q. Public", "John Smith")


def test_a_pdf_subject_is_the_abstract_only_when_it_is_prose():
    text = "Guide to Counting Owls\n\nOwls are counted at night, by ear, every spring."
    prose = "This guide describes how volunteers count owls at night by their calls, in spring."
    assert card_of(text, {"subject": prose}).abstract == prose
    assert card_of(text, {"subject": "owls; counting"}).abstract == ""


def test_the_pdf_creation_date_is_the_last_resort():
    text = "Guide to Counting Owls\n\nOwls are counted at night, by ear, every spring."
    assert card_of(text, {"created": "2023-02-27"}).date == "2023-02-27"
    assert card_of(text, {"creation_date": "2024-01-01"}).date == ""  # the file's, not its own


def test_pep_style_header_fields_continue_on_indented_lines():
    text = ("PEP: 9999\nTitle: Owls in the Standard Library\n"
            "Author: Jane Doe <jane@example.org>,\n        John Roe <john@example.org>\n"
            "Status: Draft\nCreated: 01-Apr-2031\n\n\nAbstract\n========\n\n"
            "This PEP proposes an owl module.\n\nIt counts owls.\n\nRationale\n=========\n\n"
            "Owls are popular.\n")
    card = card_of(text)
    assert card == DocumentCard(title="Owls in the Standard Library",
                                authors=("Jane Doe", "John Roe"), date="01-Apr-2031",
                                abstract="This PEP proposes an owl module. It counts owls.",
                                kind="PEP 9999", relations=("has the status Draft",))


def test_yaml_front_matter_lists_authors():
    text = "---\ntitle: Owl Notes\nauthors:\n  - Ann Lee\n  - Bo Chen\ndate: 2024-05-01\n---\n\nHi."
    card = card_of(text, {"title": "Owl Notes"})
    assert (card.title, card.authors, card.date) == ("Owl Notes", ("Ann Lee", "Bo Chen"),
                                                     "2024-05-01")


def test_rest_heading_and_by_line():
    text = "Counting Owls\n=============\n\nby Ann Lee and Bo Chen\n\nOwls are counted at night."
    card = card_of(text)
    assert (card.title, card.authors) == ("Counting Owls", ("Ann Lee", "Bo Chen"))


def test_a_text_that_opens_with_prose_has_no_title_and_no_date_from_its_sentences():
    text = ("Madam Speaker, Madam Vice President, our First Lady and Second Gentleman.\n\n"
            "In February 2022 we met. Who wrote the letter? Jane Austen did.\n\nMarch 2023 came.")
    assert not card_of(text)


def test_an_empty_card_adds_no_metadata():
    assert card_metadata(DocumentCard()) == {} and card_from_metadata({"file_name": "x"}) is None


def test_the_metadata_round_trip_keeps_the_opening_of_a_long_abstract():
    long = " ".join(["Owls are counted at night by their calls."] * 40)
    card = DocumentCard(title="T", authors=("Ann Lee",), date="2024", abstract=long, kind="K")
    back = card_from_metadata(card_metadata(card))
    assert back.abstract.endswith("calls.") and len(back.abstract) <= ABSTRACT_CHARS
    assert back == DocumentCard(title="T", authors=("Ann Lee",), date="2024",
                                abstract=back.abstract, kind="K")


def test_card_text_says_only_what_was_found_in_plain_sentences():
    card = DocumentCard(title="Zero Trust Architecture",
                        authors=("Scott Rose", "Oliver Borchert", "Stu Mitchell"),
                        date="August 2020")
    assert card_text(card) == (
        "Title of this document: Zero Trust Architecture.\n"
        "Authors who wrote this document: Scott Rose, Oliver Borchert and Stu Mitchell.\n"
        "Date of this document, when it was published: August 2020.")
    assert card_text(DocumentCard(authors=("Ann Lee",), kind="PEP 9")) == \
        "Author who wrote PEP 9: Ann Lee."


@pytest.mark.parametrize("line, person", [
    ("Murugiah Souppaya", True), ("Guido van Rossum", True), ("T. Berners-Lee", True),
    ("Karen Scarfone", True), ("Florence Nightingale", True), ("Clive Louise Lance", True),
    ("Zero Trust Architecture", False),
    ("Critical Infrastructure Cybersecurity", False), ("Risk Assessments", False),
    ("Computer Security Division", False), ("Smith J.", False), ("Owls", False),
])
def test_a_person_name_is_told_from_a_title_line(line, person):
    assert is_person_name(line) is person


def test_split_names_drops_emails_affiliations_and_marks():
    assert split_names("Guido van Rossum <guido@python.org>, Barry Warsaw (PSF), and "
                       "Alyssa Coghlan*") == ("Guido van Rossum", "Barry Warsaw", "Alyssa Coghlan")
    assert split_names("Scott Rose;Oliver Borchert") == ("Scott Rose", "Oliver Borchert")


def test_an_rfc_header_whose_date_shares_a_line_with_its_category():
    text = ("Network Working Group                                         S. Bradner\n"
            "Request for Comments: 2119                                Harvard University\n"
            "BCP: 14                                                        March 1997\n"
            "Category: Best Current Practice\n\n\n"
            "        Key words for use in RFCs to Indicate Requirement Levels\n\n"
            "Status of this Memo\n\n   This document specifies a practice.\n\n"
            "Abstract\n\n   In many standards track documents several words are used to\n"
            "   signify the requirements in the specification.\n\n"
            "This paragraph, not indented like the abstract, is not part of it at all.\n")
    card = card_of(text)
    assert card == DocumentCard(
        title="Key words for use in RFCs to Indicate Requirement Levels",
        authors=("S. Bradner",), date="March 1997", kind="RFC 2119",
        abstract="In many standards track documents several words are used to signify the "
                 "requirements in the specification.",
        relations=("is in the category Best Current Practice",))



# The first page of the MapReduce paper (OSDI 2004) as the app's PDF reader gives it: the
# first section's heading run into the abstract's last line.
MAPREDUCE = """MapReduce: Simplified Data Processing on Large Clusters
Jeffrey Dean and Sanjay Ghemawat
jeff@google.com, sanjay@google.com
Google, Inc.
Abstract
MapReduce is a programming model and an associated implementation for processing and
generating large data sets. Programmers find the system easy to use: hundreds of programs have been
implemented and upwards of one thousand MapReduce jobs are executed on Google's clusters
every day. 1 Introduction
Over the past five years, the authors and many others at
Google have implemented hundreds of special-purpose computations."""


def test_a_papers_card_keeps_its_authors_off_its_title_and_its_introduction_off_its_abstract():
    """Issue 66: "Summarise the MapReduce paper" showed the abstract of "MapReduce: Simplified
    Data Processing on Large Clusters Jeffrey Dean and Sanjay Ghemawat", ending in "1
    Introduction Over the past five years, the authors and many others at"."""
    card = card_of(MAPREDUCE)
    assert card.title == "MapReduce: Simplified Data Processing on Large Clusters"
    assert card.authors == ("Jeffrey Dean", "Sanjay Ghemawat")
    assert card.abstract.startswith("MapReduce is a programming model")
    assert card.abstract.endswith("executed on Google's clusters every day."), card.abstract
    ended = MAPREDUCE.replace("every day. 1 Introduction\n", "every day.\n1 Introduction ")
    assert card_of(ended).abstract == card.abstract  # the heading at a line's start ends it too
