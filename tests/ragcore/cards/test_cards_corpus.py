"""Cards of the real corpus files, as ``load_file`` gives them to every page of a document:
what each file says about itself, and nothing for a file that says nothing."""

from __future__ import annotations

import pytest

from ragcore.cards import CARD_KEYS, card_from_metadata, card_of
from ragcore.readers import load_file
from ragcore.types import MetadataMode


def _card(path):
    documents = load_file(path)
    cards = {card_from_metadata(d.metadata) for d in documents}
    assert len(cards) == 1, "every part of a file carries the same card"
    return cards.pop()


@pytest.mark.slow  # reads a 36-page PDF
def test_nist_sp_800_218_card_names_its_three_authors_and_february_2022(corpus_dir):
    card = _card(corpus_dir / "nist_pdfs" / "NIST.SP.800-218.pdf")
    assert card.title == ("Secure Software Development Framework (SSDF) Version 1.1: "
                          "Recommendations for Mitigating the Risk of Software Vulnerabilities")
    assert card.authors == ("Murugiah Souppaya", "Karen Scarfone", "Donna Dodson")
    assert card.date == "February 2022"  # printed on its title page; its PDF says 2022-01-31
    assert card.kind == "NIST Special Publication 800-218"
    assert card.abstract.startswith("Few software development life cycle (SDLC) models")


@pytest.mark.slow
@pytest.mark.parametrize("name, title, authors, date", [
    ("NIST.SP.800-207-ZeroTrustArchitecture.pdf", "Zero Trust Architecture",
     ("Scott Rose", "Oliver Borchert", "Stu Mitchell", "Sean Connelly"), "August 2020"),
    # Its PDF's author is "NIST Computer Security Division (CSD)"; its title page names people.
    ("nistspecialpublication800-94.pdf",
     "NIST SP 800-94, Guide to Intrusion Detection and Prevention Systems (IDPS)",
     ("Karen Scarfone", "Peter Mell"), "February 2007"),
    # No person on the title page: the organization the PDF declares, whole.
    ("NIST.CSWP.01162020.pdf", "NIST Privacy Framework: A Tool for Improving Privacy through "
     "Enterprise Risk Management, Version 1.0",
     ("National Institute of Standards and Technology",), "January 16, 2020"),
    ("NIST.CSWP.04162018.pdf", "Framework for Improving Critical Infrastructure Cybersecurity, "
     "Version 1.1", ("National Institute of Standards and Technology",), "April 16, 2018"),
    ("NIST.SP800-30r1-RiskAssessment.pdf", "NIST Special Publication 800-30 Revision 1, Guide "
     "for Conducting Risk Assessments", ("NIST Computer Security",), "September 2012"),
])
def test_nist_pdf_cards(corpus_dir, name, title, authors, date):
    card = _card(corpus_dir / "nist_pdfs" / name)
    assert (card.title, card.authors, card.date) == (title, authors, date)


@pytest.mark.slow
def test_a_pdf_card_stays_out_of_the_embedded_and_llm_text(corpus_dir):
    first = load_file(corpus_dir / "nist_pdfs" / "NIST.SP.800-218.pdf")[0]
    assert first.metadata["author"] == "Murugiah Souppaya; Karen Scarfone; Donna Dodson"
    assert first.metadata["created"] == "2022-01-31"
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        header = first.metadata_str(mode)
        assert "Souppaya" not in header and "Secure Software" not in header
        assert not any(key in header for key in CARD_KEYS)


def test_pep_8_card_comes_from_its_header(corpus_dir):
    card = _card(corpus_dir / "python_peps" / "pep-0008.rst")
    assert card.title == "Style Guide for Python Code"
    assert card.authors == ("Guido van Rossum", "Barry Warsaw", "Alyssa Coghlan")
    assert (card.date, card.kind) == ("05-Jul-2001", "PEP 8")


def test_rfc_2616_card_comes_from_its_header_and_abstract(corpus_dir):
    card = _card(corpus_dir / "rfcs" / "rfc2616.txt")
    assert card.title == "Hypertext Transfer Protocol -- HTTP/1.1"
    assert card.authors == ("R. Fielding", "J. Gettys", "J. Mogul", "H. Frystyk", "L. Masinter",
                            "P. Leach", "T. Berners-Lee")
    assert (card.date, card.kind) == ("June 1999", "RFC 2616")
    assert card.abstract.startswith("The Hypertext Transfer Protocol (HTTP) is an application")
    assert "[Page 1]" not in card.abstract  # the page footer ends it


def test_a_sherlock_holmes_story_has_only_its_title(corpus_dir):
    card = _card(corpus_dir / "sherlock_holmes_xhtml" / "a-scandal-in-bohemia.xhtml")
    assert card.title == "A Scandal in Bohemia"
    assert (card.authors, card.date, card.abstract, card.kind) == ((), "", "", "")


def test_a_speech_that_opens_with_its_first_sentence_gets_no_card(corpus_dir):
    document, = load_file(corpus_dir / "state_of_the_union" / "state_of_the_union.txt")
    assert card_from_metadata(document.metadata) is None
    assert not any(key in document.metadata for key in CARD_KEYS)


def test_a_gutenberg_header_gives_title_and_author_but_not_the_ebook_release_date(corpus_dir):
    card = _card(corpus_dir / "gutenberg_books" / "pg64317.txt")
    assert (card.title, card.authors) == ("The Great Gatsby", ("F. Scott Fitzgerald",))
    assert card.date == ""  # "Release date: January 17, 2021" dates the ebook, not the novel


@pytest.mark.slow
@pytest.mark.parametrize("name, title, authors", [
    ("NIST.SP.800-218.pdf", "Secure Software Development Framework (SSDF) Version 1.1: "
     "Recommendations for Mitigating the Risk of Software Vulnerabilities",
     ("Murugiah Souppaya", "Karen Scarfone", "Donna Dodson")),
    ("NIST.SP.800-207-ZeroTrustArchitecture.pdf", "Zero Trust Architecture",
     ("Scott Rose", "Oliver Borchert", "Stu Mitchell", "Sean Connelly")),
    ("NIST.CSWP.04162018.pdf", "Framework for Improving Critical Infrastructure Cybersecurity", ()),
])
def test_the_title_page_alone_gives_title_and_authors_of_a_pdf_without_document_info(
        corpus_dir, name, title, authors):
    pages = load_file(corpus_dir / "nist_pdfs" / name)[:8]
    card = card_of("\n\n".join(page.text for page in pages))
    assert (card.title, card.authors) == (title, authors)
