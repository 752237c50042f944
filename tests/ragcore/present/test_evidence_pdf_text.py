"""PDF text as people read it: hyphenated words kept whole, private-use bullets shown as "•".

NIST.SP.800-207 (zero trust) reads "enterprise-owned" and "end-to-end" through PDFium's U+FFFE
hyphen, which was dropped ("enterpriseowned", "end-toend"); NIST.CSWP.04162018 (the
Cybersecurity Framework) sets its list bullets in the Symbol font's private-use U+F0B7, shown as
empty boxes ("organization: ▯ Executive ▯").
"""

from __future__ import annotations

from pathlib import Path

from ragcore.readers import load_file
from ragcore.readers.pdf.reader import _clean


def _pages(path: Path) -> dict[int, str]:
    return {doc.metadata["page"]: doc.text for doc in load_file(path)}


def test_hyphenated_words_keep_their_hyphen(corpus_dir: Path):
    pages = _pages(corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf")
    text = "\n".join(pages.values())
    assert "enterprise-owned" in pages[4] and "end-to-end approach" in pages[13]
    assert "enterpriseowned" not in text and "end-toend" not in text and "\ufffe" not in text


def test_private_use_bullets_become_bullets(corpus_dir: Path):
    pages = _pages(corpus_dir / "nist_pdfs" / "NIST.CSWP.04162018.pdf")
    assert "organization:\n• Executive\n• Business/Process" in pages[19]
    assert not any("\ue000" <= c <= "\uf8ff" for text in pages.values() for c in text)


def test_a_word_broken_at_a_line_end_is_joined_when_the_halves_make_a_word():
    assert _clean("a docu\ufffe\r\nment here") == "a document here"
    assert _clean("an enterprise\ufffe\r\nowned network") == "an enterprise-owned network"
    assert _clean("\uf0a7 first\r\n  \uf021 second") == "• first\n  • second"
