"""PDF (.pdf) with pypdfium2: one part per page, labelled with the page's printed label.

Each page becomes its own document so an answer can cite "page 12" (the label printed on the page,
from the PDF's page-label tree, e.g. "iv" in a preface) next to its 1-based position. Running
headers and footers that repeat on most pages (titles, URLs, page numbers) are removed, so they do
not crowd every chunk. A page without a text layer (a scan) is read by OCR when Tesseract is
installed (``ocr.py``; such pages carry ``ocr: True``); otherwise, or when OCR finds nothing, it
is skipped, and a PDF with no text at all is reported as probably scanned. The PDF's document
info (``title``, ``author``, ``subject``, ``created`` as an ISO date) goes into the first
page's metadata, kept out of the embedded and LLM text: the document card is made from it.

Why PDFium (Chrome's PDF engine) and not pypdf: pypdf splits words whose letters are kerned
apart ("Create a ne w archive", "e xclusion" in groff-made manual pages) and is an order of
magnitude slower. Measured on 6 man-page PDFs (76 pages) and the 6 NIST PDFs of the corpus
(415 pages), counting adjacent tokens that only form a dictionary word when joined:

    extractor             man pages: pages/s  split words   NIST: pages/s  split words
    pypdf 7.1             36                  764           13             9
    pypdf layout mode     29                  270           7              233
    pypdfium2 5.15        299                 18            185            0

PDFium still splits a few words where groff set letters as far apart as word gaps ("e xtension",
"ha ve"); ``split_words`` joins them again from the document's own words and an English
lexicon: 0 split words left on those man pages, no join on the NIST PDFs.

PDFium is not thread-safe, so every call into it holds one process-wide lock. Python warnings
raised while reading go to ``logging`` (logger ``ragcore.readers.pdf.reader``, naming the file), never
straight to stderr. pypdfium2 is imported here, on first use, never when ragcore is imported.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

from ragcore.cards.dates import pdf_date
from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.search.english_words import english_lexicon
from ragcore.readers.pdf.ocr import ocr_available, ocr_images
from ragcore.readers.part import Part
from ragcore.readers.pdf.split_words import rejoin_split_words
from ragcore.readers.text import strip_running_lines

logger = logging.getLogger(__name__)

# The page position is for code (sorting, links); the label is what a reader sees and cites.
# The PDF's document info (on the first page's part) is read by the document card
# (``ragcore.cards``), which shows it to the LLM as its own passage when asked about the document.
_INFO_KEYS = {"Title": "title", "Author": "author", "Subject": "subject"}
_PAGE_EXCLUDED_EMBED = ("page", "page_label", "ocr", *_INFO_KEYS.values(), "created")
_PAGE_EXCLUDED_LLM = ("page", "ocr", *_INFO_KEYS.values(), "created")
_UNLOCK_HINT = (
    "remove the password (save an unprotected copy from your PDF viewer, "
    "or run `qpdf --decrypt in.pdf out.pdf`) and upload again"
)
PDFIUM_LOCK = threading.Lock()
OcrProgress = Callable[[int, int], None]  # (pages read by OCR so far, pages it will read)
_PASSWORD_ERROR = 4  # FPDF_ERR_PASSWORD
# Scanned books run to hundreds of pages at a few seconds each: OCR stops here (logged).
MAX_OCR_PAGES = 300
OCR_SAMPLE = 40  # pages looked at to count a PDF's scanned pages before it is read
OCR_DPI = 300
# An A4 page at 300 dpi is 8.7 megapixels; a page declared metres wide is rendered smaller.
MAX_OCR_PIXELS = 40_000_000
# U+FFFE is a hyphen PDFium found at a line end, and it joins the lines. It ends a syllable
# ("possi\ufffeble" in groff's man pages) as often as a compound ("enterprise\ufffeowned",
# "end-to\ufffeend": all 156 in the NIST PDFs), so the halves are joined when they make a word and
# the hyphen is kept otherwise.
_LINE_END_HYPHEN = "\ufffe"
_HYPHEN_BREAK = re.compile(r"(\w*)\ufffe(?:[ \t]*\r?\n[ \t]*)?(\w+)")
# A word the document also writes hyphenated inside a line ("Non-person entities", NIST SP
# 800-207) keeps its hyphen when a line end breaks it, though the lexicon knows "nonperson".
_HYPHENATED = re.compile(r"(?<![\w-])[^\W\d_]+-[^\W\d_]+(?![\w-])")
# Other control characters are glyphs without a Unicode mapping (list bullets, mostly).
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# Symbol and Wingdings fonts put their bullets in the private use area (U+F0B7 is Symbol's "•",
# 69 of them in NIST.CSWP.04162018.pdf); a browser shows them as empty boxes. A private-use glyph
# or an unmapped one (a control character: U+001F for all 349 bullets of NIST SP 800-94) that
# starts a line is a list bullet whatever its code.
_PRIVATE_BULLETS = re.compile("[\uf0b7\uf0a7\uf0a8\uf0d8\uf0fc\uf076\uf06e\uf0e0\uf09f]"
                              "|(?m:^[ \t]*)[\ue000-\uf8ff\x00-\x08\x0e-\x1f\x7f]")


def read_pdf(path: Path, *, ocr_progress: OcrProgress | None = None) -> list[Part]:
    """One part per page that has text, with ``page`` (1-based) and ``page_label`` metadata;
    ``ocr_progress(done, total)`` hears of the scanned pages read by OCR (once before the first)."""
    with pdf_warnings_logged(path):
        return _read(path, ocr_progress)


def pages_to_ocr(path: Path) -> int:
    """About how many pages of the PDF at ``path`` reading it will OCR (0 without Tesseract):
    the pages without text, counted on up to ``OCR_SAMPLE`` pages spread through it, at most
    ``MAX_OCR_PAGES``. Cheap (a few hundred ms at most), for a job's time estimate."""
    if not ocr_available():
        return 0
    import pypdfium2 as pdfium

    try:
        with PDFIUM_LOCK:
            document = pdfium.PdfDocument(read_bytes(path))
            try:
                count = len(document)
                sample = range(count) if count <= OCR_SAMPLE else \
                    [i * count // OCR_SAMPLE for i in range(OCR_SAMPLE)]
                blank = sum(not _page_text(document, i).strip() for i in sample)
            finally:
                document.close()
    except Exception:  # noqa: BLE001 - a file that cannot be read fails fast when it is read
        return 0
    return min(MAX_OCR_PAGES, round(blank * count / len(sample))) if sample else 0


@contextlib.contextmanager
def pdf_warnings_logged(path: Path) -> Iterator[None]:
    """Inside this block, ``warnings`` raised (by the PDF library) are logged, naming ``path``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for warning in caught:
                logger.warning("%s: %s", path, warning.message)


def _read(path: Path, ocr_progress: OcrProgress | None) -> list[Part]:
    data = read_bytes(path)
    if b"%PDF-" not in data[:1024]:
        raise ReaderError(
            path,
            "is not a PDF (no %PDF header)",
            "check the file; rename it if it is another format",
        )
    texts, labels, ocr_pages = _extract(data, path, ocr_progress)
    texts = rejoin_split_words(texts, lexicon=english_lexicon())
    pages = strip_running_lines([text.split("\n") for text in texts])
    parts = []
    info = _document_info(data, path)
    for index, lines in enumerate(pages):
        if not lines:
            continue
        metadata: dict[str, Any] = {"page_label": labels[index], "page": index + 1}
        if not parts:
            metadata.update(info)
        if index in ocr_pages:
            metadata["ocr"] = True
        parts.append(Part("\n".join(lines), metadata, f"#page={index + 1}",
                          _PAGE_EXCLUDED_EMBED, _PAGE_EXCLUDED_LLM))
    if not parts:
        raise _no_text(path, len(texts))
    return parts


def _document_info(data: bytes, path: Path) -> dict[str, str]:
    """The PDF's title, author, subject and creation date ("created", ISO), those it sets."""
    import pypdfium2 as pdfium

    try:
        with PDFIUM_LOCK:
            document = pdfium.PdfDocument(data)
            try:
                raw = document.get_metadata_dict()
            finally:
                document.close()
    except Exception as exc:  # noqa: BLE001 - the pages were read; a broken info dict is no loss
        logger.debug("%s: document info unreadable (%s)", path, exc)
        return {}
    info = {key: " ".join(str(raw.get(name) or "").split()) for name, key in _INFO_KEYS.items()}
    info["created"] = pdf_date(str(raw.get("CreationDate") or ""))
    return {key: value for key, value in info.items() if value}


def _no_text(path: Path, pages: int) -> ReaderError:
    counted = f"{pages} page{'' if pages == 1 else 's'}"
    if ocr_available():
        return ReaderError(
            path,
            f"no extractable text in {counted} (scanned? OCR with Tesseract found no text "
            "either)",
            "check that the pages hold text; for a poor scan, run OCR with other settings "
            "(e.g. `ocrmypdf --force-ocr in.pdf out.pdf`) and upload the result",
        )
    return ReaderError(
        path,
        f"no extractable text in {counted} (scanned?)",
        "install Tesseract (e.g. `apt-get install tesseract-ocr`) to have scans read by OCR, "
        "or run OCR on it (e.g. `ocrmypdf in.pdf out.pdf`) and upload the result",
    )


def _corrupt(path: Path, exc: BaseException) -> ReaderError:
    return ReaderError(
        path,
        f"is damaged or not a valid PDF ({type(exc).__name__}: {exc})",
        "open it in a PDF viewer and save or print it to a new PDF, then upload that",
    )


def _extract(data: bytes, path: Path, ocr_progress: OcrProgress | None,
             ) -> tuple[list[str], list[str], set[int]]:
    """Each page's text and label, and the indexes of pages read by OCR."""
    with PDFIUM_LOCK:
        document = _open(data, path)
    try:
        with PDFIUM_LOCK:
            texts, labels = _pages(document, path)
        ocr_pages = _ocr(document, texts, path, ocr_progress) if ocr_available() else set()
    finally:
        with PDFIUM_LOCK:
            document.close()
    return texts, labels, ocr_pages


def _ocr(document: Any, texts: list[str], path: Path, progress: OcrProgress | None) -> set[int]:
    """OCR the pages without text into ``texts``, a core's worth of pages at a time."""
    blank = [index for index, text in enumerate(texts) if not text.strip()]
    if len(blank) > MAX_OCR_PAGES:
        logger.warning("%s: OCR stops at %d pages; page %d and later scanned pages are skipped",
                       path, MAX_OCR_PAGES, blank[MAX_OCR_PAGES] + 1)
        blank = blank[:MAX_OCR_PAGES]
    done: set[int] = set()
    step = max(1, os.cpu_count() or 1)
    if progress is not None and blank:
        progress(0, len(blank))
    for start in range(0, len(blank), step):
        batch = blank[start:start + step]
        with PDFIUM_LOCK:  # rendered a batch at a time: a 300-dpi page image is ~9 MB
            images = [_render(document, index) for index in batch]
        for index, result in zip(batch, ocr_images(images)):
            if isinstance(result, RuntimeError):
                logger.warning("%s: page %d: OCR failed, page skipped: %s", path, index + 1, result)
            else:
                texts[index] = _clean(result)
                done.add(index)
        if progress is not None:
            progress(min(start + step, len(blank)), len(blank))
    return done


def _render(document: Any, index: int) -> Any:
    """The page as a grey image at OCR_DPI, scaled down to MAX_OCR_PIXELS for a huge page."""
    page = document[index]
    try:
        width, height = page.get_size()  # in points, 1/72 inch
        scale = OCR_DPI / 72
        area = max(width * height, 1.0) * scale * scale
        if area > MAX_OCR_PIXELS:
            scale *= math.sqrt(MAX_OCR_PIXELS / area)
        return page.render(scale=scale, grayscale=True).to_pil()
    finally:
        page.close()


def _open(data: bytes, path: Path) -> Any:
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if getattr(exc, "err_code", None) == _PASSWORD_ERROR:
            raise ReaderError(path, "is encrypted with a password", _UNLOCK_HINT) from exc
        raise _corrupt(path, exc) from exc
    except Exception as exc:  # anything else from a malformed file means the same to the user
        raise _corrupt(path, exc) from exc


def _pages(document: Any, path: Path) -> tuple[list[str], list[str]]:
    """The text and the label of every page."""
    try:
        count = len(document)
    except Exception as exc:
        raise _corrupt(path, exc) from exc
    texts, labels = [], []
    for index in range(count):
        try:
            texts.append(_page_text(document, index))
        except Exception as exc:  # one bad page (a broken font, a bad stream) spares the rest
            logger.warning("%s: page %d skipped, no text can be extracted: %s", path, index + 1,
                           exc)
            texts.append("")
        labels.append(_label(document, index))
    hyphenated = hyphenated_words(texts)
    return [_clean(text, hyphenated) for text in texts], labels


def _page_text(document: Any, index: int) -> str:
    # Closed here, under the caller's lock, not later by a garbage collector in another thread.
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            return textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()


def _label(document: Any, index: int) -> str:
    try:
        return document.get_page_label(index) or str(index + 1)
    except Exception as exc:  # a broken label tree must not lose the pages themselves
        logger.debug("page label %d unreadable (%s); using the page number", index + 1, exc)
        return str(index + 1)


def hyphenated_words(texts: list[str]) -> frozenset[str]:
    """The words the document writes with a hyphen inside a line ("non-person"), lower case and
    without the hyphen ("nonperson"): broken at a line end, they keep it."""
    return frozenset(m.group().replace("-", "").lower()
                     for text in texts for m in _HYPHENATED.finditer(text))


def _clean(text: str, hyphenated: frozenset[str] = frozenset()) -> str:
    """Page text as people read it: hyphens kept, bullets as "•", line ends as "\\n"."""
    text = _HYPHEN_BREAK.sub(lambda m: _join_halves(m, hyphenated), text)
    text = text.replace(_LINE_END_HYPHEN, "-")
    text = _PRIVATE_BULLETS.sub(_bullet, text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = (_CONTROL.sub("", line).rstrip() for line in text.split("\n"))
    return "\n".join(lines)


def _join_halves(match: re.Match[str], hyphenated: frozenset[str]) -> str:
    head, tail = match.group(1), match.group(2)
    joined = (head + tail).lower()
    if joined not in hyphenated and joined in english_lexicon().words:
        return head + tail
    return f"{head}-{tail}"


def _bullet(match: re.Match[str]) -> str:
    return match.group()[:-1] + "\u2022"
