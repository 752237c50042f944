"""A word broken at a line end keeps its hyphen when the document writes it with one elsewhere:
NIST SP 800-207 prints "non-\\nperson entities" at a line end and "Non-person" inside lines, but
the lexicon knows "nonperson", so it read "nonperson entities"."""

from __future__ import annotations

from pathlib import Path

from ragcore.readers import load_file
from ragcore.readers.pdf.reader import _clean, hyphenated_words


def test_the_document_s_own_spelling_decides(corpus_dir: Path):
    pdf = corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf"
    text = "\n".join(doc.text for doc in load_file(pdf))
    assert "(person and non-person entities)" in text and "nonperson" not in text
    assert "offline" in text  # no hyphenated spelling in the document: the lexicon joins it


def test_hyphenated_words_are_collected_inside_lines_only():
    texts = ["Non-person entities and self-\ufffe\r\nowned x-ray 800-207", "a well-known fact"]
    assert hyphenated_words(texts) == frozenset({"nonperson", "xray", "wellknown"})
    assert _clean("and non\ufffe\r\nperson", frozenset({"nonperson"})) == "and non-person"
    assert _clean("and non\ufffe\r\nperson") == "and nonperson"
