"""PDF text extractors compared: speed (pages/s), words split apart ("e xtension"), wrong joins.

    RAGCORE_CORPUS=../shared/corpus python -m benchmarks --only pdf_text

Runs pypdf (plain and layout mode), raw PDFium (pypdfium2) and ragcore's PDF reader (PDFium, then
``readers.split_words`` rejoins split words) on two sets: the six groff-made manual pages of
tests/data (dpkg, find, grep, gzip, sed, tar: 76 pages) and every PDF of the corpus (the NIST
reports). A split word is two adjacent alphabetic tokens that form a known word only when
joined ("ha ve"), with at least one of them not a word; the known words are
/usr/share/dict/words when installed, else every word of the corpus's plain-text folders.

Wrong joins, checked two ways: joins whose halves are both known words (on the PDFs), and every
join the rejoin makes on the corpus's plain text (books, PEPs, RFCs, the Rust book, speeches),
which has no split words, so each join there is a wrong one. Speed: the reader's pages/s against
raw PDFium's on the same pages (target: at most 1.2 times slower), best of a few runs of CPU time.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

from benchmarks.harness import Row, corpus_dir

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"
MANPAGES = sorted(DATA.glob("*-manpage.pdf"))
_WORD = re.compile(r"[A-Za-z]+")
_TEXT_FOLDERS = ("gutenberg_books", "python_peps", "rust_book", "rfcs")
_CLEAN_FOLDERS = (*_TEXT_FOLDERS, "state_of_the_union")
MAX_SLOWDOWN = 1.2
RUNS = 3


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
    from ragcore.readers.pdf.reader import _extract

    texts, _, _ = _extract(path.read_bytes(), path)
    return texts


def reader(path: Path) -> list[str]:
    """What ragcore's PDF reader extracts before it drops running headers: PDFium + rejoin."""
    from ragcore.search.english_words import english_lexicon
    from ragcore.readers.pdf.split_words import rejoin_split_words

    return rejoin_split_words(pdfium(path), lexicon=english_lexicon())


EXTRACTORS = (("pypdf", pypdf_plain), ("pypdf layout", pypdf_layout), ("pypdfium2", pdfium),
              ("ragcore reader", reader))


def _best_seconds(extract, paths: list[Path], runs: int) -> tuple[float, list[str]]:
    best, texts = float("inf"), []
    for _ in range(runs):
        started = time.process_time()
        texts = [text for path in paths for text in extract(path)]
        best = min(best, time.process_time() - started)
    return best, texts


def _wrong_joins(paths: list[Path], known: set[str]) -> tuple[int, list[str]]:
    """Joins on the PDFs whose halves are both dictionary words."""
    from ragcore.search.english_words import english_lexicon
    from ragcore.readers.pdf.split_words import split_pairs

    pairs = [pair for path in paths for pair in split_pairs(pdfium(path), lexicon=english_lexicon())]
    both = [f"{left} {right}" for left, right in pairs if left in known and right in known]
    return len(pairs), both


def _clean_text_joins(corpus: Path) -> tuple[int, int, list[str]]:
    """Files, characters and the joins made on the corpus's plain text (all wrong)."""
    from ragcore.search.english_words import english_lexicon
    from ragcore.readers.pdf.split_words import split_pairs

    files = chars = 0
    joins: list[str] = []
    for folder in _CLEAN_FOLDERS:
        for path in sorted((corpus / folder).rglob("*")):
            if path.is_file() and path.suffix in (".txt", ".rst", ".md", ""):
                text = path.read_text(errors="replace")
                files, chars = files + 1, chars + len(text)
                joins += [f"{path.name}: {left} {right}" for left, right
                          in split_pairs(text.split("\f"), lexicon=english_lexicon())]
    return files, chars, joins


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row]:
    corpus = corpus or corpus_dir()
    known = vocabulary(corpus)
    nist = sorted((corpus / "nist_pdfs").glob("*.pdf"))[: 2 if quick else None]
    sets = (("man pages", MANPAGES), ("NIST PDFs", nist))
    rows = []
    for _, extract in EXTRACTORS:  # imports and first-use set-up are not the extractor's speed
        extract(MANPAGES[0])
    for set_name, paths in sets:
        seconds = {}
        for name, extract in EXTRACTORS:
            runs = 1 if name.startswith("pypdf") or quick else RUNS
            seconds[name], texts = _best_seconds(extract, paths, runs)
            split = sum(split_words(text, known) for text in texts)
            note = f"{len(texts)} pages"
            mine = name == "ragcore reader"
            rows.append(Row("pdf_text", f"{name}, {set_name}: pages/s",
                            len(texts) / seconds[name], "pages/s", note=note))
            rows.append(Row("pdf_text", f"{name}, {set_name}: split words", split, "words",
                            target="0" if mine else "", ok=(split == 0) if mine else None,
                            note=note))
            sys.stderr.write(f"  {name} on {set_name}: {seconds[name]:.2f} s CPU, {split} split"
                             " words\n")
        slowdown = seconds["ragcore reader"] / seconds["pypdfium2"]
        rows.append(Row("pdf_text", f"ragcore reader / pypdfium2, {set_name}: time", slowdown,
                        "x", target=f"<= {MAX_SLOWDOWN}", ok=slowdown <= MAX_SLOWDOWN))
        joins, both = _wrong_joins(paths, known)
        rows.append(Row("pdf_text", f"rejoin, {set_name}: joins of two dictionary words",
                        len(both), "joins", target="0", ok=not both,
                        note=f"of {joins} joins; " + ", ".join(both[:5])))
    files, chars, joins = _clean_text_joins(corpus)
    rows.append(Row("pdf_text", "rejoin on plain text (no split words): joins", len(joins),
                    "joins", note=f"{files} files, {chars / 1e6:.1f} M characters; "
                    + ", ".join(joins[:5])))
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table(run(quick="--quick" in sys.argv)))
