"""``asks_about_document``: questions about a document itself, told from questions about
what it tells."""

from __future__ import annotations

import pytest

from ragcore.cards import asks_about_document


@pytest.mark.parametrize("question", [
    "Who wrote this paper?",
    "Who are the authors of NIST SP 800-218?",
    "Who are the authors named on the specification?",
    "Which editors are listed in this report?",
    "Who are the authors on the paper?",
    "who authored the white paper",
    "List the authors of this paper.",
    "What's the paper's title?",
    "What is the title of this document?",
    "By whom was this book written?",
    "Who wrote PEP 8?",
    "Who wrote pep-0008.rst?",
    "Who published Special Publication 800-94?",
    "Who is the author of \u201cA Scandal in Bohemia\u201d?",
    "When was RFC 2616 published?",
    "When did the report come out?",
    "What year was PEP 8 created?",
    "When was it published?",
    "Who wrote it?",
    "What is this document about?",
    "What is RFC 2616?",
    "Summarize the document.",
    "Tell me about this PDF",
    "what kind of document is this?",
    "Who are the authors?",
    "What is the publication date?",
])
def test_questions_about_the_document(question):
    assert asks_about_document(question)


@pytest.mark.parametrize("question", [
    "Who wrote the letter to Holmes?",
    "Who wrote the letter in this story?",  # the letter is in the story; it is not the story
    "Who is the author of the letter?",
    "Who is the author named in the letter?",  # a letter is not a document at hand
    "Which authors are cited in the paper?",  # the paper's references, not its authors
    "Who wrote to Holmes?",
    "What does the paper say about supply chains?",
    "what are the authors' recommendations for secure development?",
    "When was the HTTP protocol created?",
    "What is the title of the song Irene sang?",
    "Who published the vulnerability?",
    "What is zero trust?",
    "What is it?",
    "",
])
def test_questions_about_the_contents(question):
    assert not asks_about_document(question)


def test_a_title_at_hand_names_a_document():
    assert not asks_about_document("Who wrote A Scandal in Bohemia?")
    assert asks_about_document("Who wrote A Scandal in Bohemia?", titles=["A Scandal in Bohemia"])
    ssdf = ("Secure Software Development Framework (SSDF) Version 1.1: Recommendations for "
            "Mitigating the Risk of Software Vulnerabilities")
    assert asks_about_document("When was the Secure Software Development Framework published?",
                               titles=[ssdf])


def test_a_document_word_naming_another_work_asks_about_the_contents():
    # "the book Colonel Sun" is a book the passages mention, not one of the documents
    assert not asks_about_document("Who wrote the book Colonel Sun?")
    assert not asks_about_document("When was the novel Go Set a Watchman published?")
    assert asks_about_document("Who wrote the book?")
    assert asks_about_document("Who are the authors of the report NIST SP 800-218?")
    assert asks_about_document("Who wrote the story A Scandal in Bohemia?",
                               titles=["A Scandal in Bohemia"])


def test_a_title_that_is_also_the_topic_asks_about_the_topic():
    from ragcore.cards import asks_about_document

    title = ["Zero Trust Architecture"]
    assert not asks_about_document("What is zero trust architecture?", titles=title)
    assert asks_about_document("Who wrote Zero Trust Architecture?", titles=title)


def test_a_titles_own_acronym_and_a_name_followed_by_what_it_also_is_name_the_document():
    titles = ["Secure Software Development Framework (SSDF) Version 1.1: Recommendations for "
              "Mitigating the Risk of Software Vulnerabilities"]
    assert asks_about_document("When was the SSDF published?", titles=titles)
    assert asks_about_document("When was SP 800-218 (SSDF version 1.1) published?")
    assert not asks_about_document("What are the four groups of practices in the SSDF?",
                                   titles=titles)
    assert not asks_about_document("When was the SSDF published?")  # no title at hand says so
