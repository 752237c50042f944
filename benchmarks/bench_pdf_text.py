"""PDF text extractors compared: speed (pages/s) and words split apart ("e xtension").

    python -m benchmarks.bench_pdf_text

Runs pypdf (plain and layout mode) and PDFium (pypdfium2, what ``ragcore.readers.pdf`` uses) on
the corpus PDFs and the groff-made gzip manual page of tests/data. A split word is two adjacent
alphabetic tokens that form a known word only when joined ("ha ve"), with at least one of them
not a word; the known words are /usr/share/dict/words when installed, else every word of the
corpus's plain-text folders (books, PEPs, the Rust book), which no extractor produced.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from benchmarks.harness import Row, corpus_dir

MANPAGE = Path(__file__).resolve().parents[1] / "tests" / "data" / "gzip-manpage.pdf"
_WORD = re.compile(r"[A-Za-z]+")
_TEXT_FOLDERS = ("gutenberg_books", "python_peps", "rust_book", "rfcs")


def vocabulary(corpus: Path) -> set[str]:
    words = Path("/usr/share/dict/words")
    if words.is_file():
        return {w.strip().lower() for w in words.read_text(errors="replace").split() if w.isalpha()}
    known: set[str] = set()
    for folder in _TEXT_FOLDERS:
        for path in (corpus / folder).rglob("*"):
            if path.is_file() and path.suffix in (".txt", ".rst", ".md"):
                known.update(w.lower() for w in _WORD.findall(path.read_text(errors="replace")))
    return known


def split_words(text: str, known: set[str]) -> int:
    tokens = text.split()
    count = 0
    for left, right in zip(tokens, tokens[1:]):
        if left.isalpha() and right.isalpha():
            joined = (left + right).lower()
            whole = left.lower() in known and right.lower() in known
            count += len(joined) > 3 and joined in known and not whole
    return count


def pypdf_plain(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [page.extract_text() or "" for page in PdfReader(path).pages]


def pypdf_layout(path: Path) -> list[str]:
    from pypdf import PdfReader

    return [page.extract_text(extraction_mode="layout") or "" for page in PdfReader(path).pages]


def pdfium(path: Path) -> list[str]:
    from ragcore.readers.pdf import _extract

    texts, _, _ = _extract(path.read_bytes(), path)
    return texts


EXTRACTORS = (("pypdf", pypdf_plain), ("pypdf layout", pypdf_layout), ("pypdfium2", pdfium))


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row]:
    corpus = corpus or corpus_dir()
    known = vocabulary(corpus)
    nist = sorted((corpus / "nist_pdfs").glob("*.pdf"))[: 2 if quick else None]
    sets = (("man page", [MANPAGE]), ("NIST PDFs", nist))
    rows = []
    for _, extract in EXTRACTORS:  # imports and first-use set-up are not the extractor's speed
        extract(MANPAGE)
    for set_name, paths in sets:
        for name, extract in EXTRACTORS:
            started = time.perf_counter()
            texts = [text for path in paths for text in extract(path)]
            seconds = time.perf_counter() - started
            split = sum(split_words(text, known) for text in texts)
            note = f"{len(texts)} pages"
            rows.append(Row("pdf_text", f"{name}, {set_name}: pages/s", len(texts) / seconds,
                            "pages/s", note=note))
            rows.append(Row("pdf_text", f"{name}, {set_name}: split words", split, "words",
                            target="0" if name == "pypdfium2" and set_name == "NIST PDFs" else "",
                            ok=(split == 0) if name == "pypdfium2" and set_name == "NIST PDFs"
                            else None, note=note))
            sys.stderr.write(f"  {name} on {set_name}: {seconds:.1f} s, {split} split words\n")
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table(run(quick="--quick" in sys.argv)))
