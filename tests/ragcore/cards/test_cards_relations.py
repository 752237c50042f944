"""A document's card says what it declares of its place among others: the RFCs it obsoletes."""

from __future__ import annotations

from ragcore.cards import asks_about_document, card_from_metadata, card_metadata, card_of, card_text
from ragcore.cards.relations import relations_of

RFC = """\
Network Working Group                                     T. Berners-Lee
Request for Comments: 3986                                       W3C/MIT
STD: 66                                                      R. Fielding
Updates: 1738                                               Day Software
Obsoletes: 2732, 2396, 1808                                  L. Masinter
Category: Standards Track                                  Adobe Systems
                                                            January 2005


           Uniform Resource Identifier (URI): Generic Syntax

Status of this Memo

   This document specifies an Internet standards track protocol.
"""

PEP = ("PEP: 333\nTitle: Python Web Server Gateway Interface v1.0\nAuthor: Phillip J. Eby\n"
       "Status: Final\nType: Informational\nCreated: 07-Dec-2003\nSuperseded-By: 3333\n\n\n"
       "Abstract\n========\n\nThis document specifies a proposed standard interface.\n")


def test_an_rfc_header_gives_what_it_obsoletes_and_updates_without_the_authors_column():
    card = card_of(RFC)
    assert card.kind == "RFC 3986"
    assert card.relations == ("updates RFC 1738", "obsoletes RFC 2732, RFC 2396 and RFC 1808",
                              "is in the category Standards Track")
    assert card.authors == ("T. Berners-Lee", "R. Fielding", "L. Masinter")


def test_a_pep_header_gives_what_supersedes_it_and_its_status():
    assert card_of(PEP).relations == ("has the status Final", "is superseded by PEP 3333")


def test_a_document_of_no_series_declares_no_relations():
    memo = "Owl Survey Notes\n\nStatus: Draft\nUpdates: 12\n\nOwls were counted at night."
    assert relations_of(memo.split("\n"), "") == ()
    assert card_of(memo).relations == ()


def test_relations_ride_on_metadata_and_read_as_sentences_naming_the_document():
    card = card_of(RFC)
    back = card_from_metadata(card_metadata(card))
    assert back == card
    text = card_text(card)
    assert "RFC 3986 obsoletes RFC 2732, RFC 2396 and RFC 1808." in text.split("\n")
    assert "RFC 3986 updates RFC 1738." in text.split("\n")
    # a store that keeps only scalars gives one relation as a string
    assert card_from_metadata({"card_relations": "updates RFC 1738"}).relations == (
        "updates RFC 1738",)


def test_questions_about_what_a_document_obsoletes_or_updates_are_about_the_document():
    for question in ("Which RFC does RFC 2616 obsolete?", "Which RFCs are obsoleted by RFC 3986?",
                     "Which RFC does RFC 3986 update?", "Does RFC 3986 update RFC 1738?",
                     "What is the status of PEP 8?", "What is PEP 8's status?",
                     "Which PEP supersedes PEP 333?"):
        assert asks_about_document(question), question
    for question in ("What does the server update?", "Which fields does the client update?",
                     "What is the status code for a request that is too large?"):
        assert not asks_about_document(question), question
