"""Words split by a PDF's layout are joined again, and real separate words are not.

The man pages in tests/data are groff-made (``zcat find.1.gz | groff -man -Tpdf``); PDFium reads
a few of their words split ("e xtension"), where groff set letters as far apart as word gaps.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ragcore.readers import load_file
from ragcore.search.english_words import english_lexicon
from ragcore.readers.pdf.split_words import rejoin_split_words, split_pairs

DATA = Path(__file__).resolve().parents[2] / "data"
# Every split PDFium leaves in these pages (the benchmark's count: 18 on the six of them).
SPLITS = {
    "gzip-manpage.pdf": ("e xtension", "preserv e", "ha ve"),
    "find-manpage.pdf": ("e xamines", "e xamining", "e xist", "en vironment", "illustrati ve",
                         "tak es", "e xisting"),
    "grep-manpage.pdf": ("synon ym", "gr ep"),
    "tar-manpage.pdf": ("e xist", "V alid", "ar gument"),
    "sed-manpage.pdf": ("e xtended",),
    "dpkg-manpage.pdf": ("gi ven",),
}


def _text(path: Path) -> str:
    return "\n".join(doc.text for doc in load_file(path))


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_man_page_words_split_by_layout_are_whole(name: str):
    text = _text(DATA / name)
    assert [split for split in SPLITS[name] if split in text] == []
    words = set(re.findall(r"[A-Za-z]+", text))
    assert {split.replace(" ", "") for split in SPLITS[name]} <= words


def test_real_separate_words_of_the_corpus_pdfs_stay_apart(corpus_dir: Path):
    from ragcore.readers.pdf.reader import _extract

    for path in sorted((corpus_dir / "nist_pdfs").glob("*.pdf")):
        pages, _, _ = _extract(path.read_bytes(), path, None)
        assert split_pairs(pages, lexicon=english_lexicon()) == [], path.name


@pytest.mark.parametrize("relative", [
    "python_peps/pep-0008.rst", "python_peps/pep-0316.rst", "gutenberg_books/pg1342.txt",
    "gutenberg_books/pg345.txt", "gutenberg_books/pg16.txt", "rust_book/src/ch10-03-lifetime-syntax.md",
])
def test_nothing_is_joined_in_text_without_split_words(corpus_dir: Path, relative: str):
    # Compounds written both ways ("nether world"), code ("let s"), CamelCase names.
    text = (corpus_dir / relative).read_text(encoding="utf-8", errors="replace")
    assert split_pairs(text.split("\f"), lexicon=english_lexicon()) == []


def _rejoined(*pages: str) -> list[str]:
    return rejoin_split_words(list(pages), lexicon=english_lexicon())


def test_words_either_way_and_names_stay_as_written():
    pages = [
        "Set the timezone with care. A whitehouse.gov page said the White House is open.",
        "The time zone matters. Go away now, he said, a way out was found into the night.",
        "An AssertionError is raised; assertion error text follows. Not POSIX compliant.",
        "Use the POSIXcompliant option. Top Layer and TopLayer. The life cycle, a lifecycle.",
    ]
    assert _rejoined(*pages) == pages


def test_a_split_word_is_joined_in_place_keeping_punctuation_and_case():
    pages = ["The (e xtension, of the file.\n  V alid names", "Each extension is valid."]
    assert _rejoined(*pages) == ["The (extension, of the file.\n  Valid names", pages[1]]


def test_halves_on_two_lines_or_pages_are_not_joined():
    pages = ["the e\nxtension here", "an e", "xtension there", "one extension"]
    assert _rejoined(*pages) == pages


def test_a_fragment_written_alone_elsewhere_is_a_word():
    # "foo" and "bar" are not English, but both stand alone elsewhere: "foobar" stays apart.
    pages = ["The foo bar test and a foobar value.", "foo is set; bar is unset."]
    assert _rejoined(*pages) == pages


def test_other_languages_are_rejoined_from_the_document_alone():
    pages = ["Il faut le faire mainte nant, dit-il.", "Maintenant la porte est ouverte."]
    assert rejoin_split_words(pages, lexicon=english_lexicon())[0] == (
        "Il faut le faire maintenant, dit-il.")
    # ...and the English lexicon is not used for them: "extension" is not in this document.
    french = ["Le fichier porte une e xtension et le nom est court."]
    assert rejoin_split_words(french, lexicon=english_lexicon()) == french
    english = ["The file has an e xtension and the name is short."]
    assert rejoin_split_words(english, lexicon=english_lexicon()) == [
        "The file has an extension and the name is short."]


def test_stopwords_are_never_halves_even_without_a_lexicon():
    # Document only: "way" stands nowhere else, so only the stopword rule keeps "a way" apart.
    pages = ["Find a way.", "It went away."]
    assert rejoin_split_words(pages, lexicon=None) == pages
    assert rejoin_split_words(["Find e way.", "It went eway."], lexicon=None)[0] == "Find eway."
