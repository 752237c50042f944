"""PDF (.pdf) with pypdf: one part per page, labelled with the page's printed label.

Each page becomes its own document so an answer can cite "page 12" (the label printed on the page,
from the PDF's page-label tree, e.g. "iv" in a preface) next to its 1-based position. Running
headers and footers that repeat on most pages (titles, URLs, page numbers) are removed, so they do
not crowd every chunk. Pages without text are skipped; a PDF with no text at all is reported as
probably scanned. pypdf is imported here, on first use, never when ragcore is imported.
pypdf's complaints about a malformed file go to ``logging`` (logger ``ragcore.readers.pdf``, named
with the file), never straight to stderr.
"""

from __future__ import annotations

import contextlib
import io
import logging
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.part import Part
from ragcore.readers.text import strip_running_lines

logger = logging.getLogger(__name__)
# pypdf logs repairs on its "pypdf" logger; with no handler anywhere, Python's last-resort
# handler would print them raw to stderr. A library logger carries a NullHandler instead.
logging.getLogger("pypdf").addHandler(logging.NullHandler())

# The page position is for code (sorting, links); the label is what a reader sees and cites.
_PAGE_EXCLUDED_EMBED = ("page", "page_label")
_PAGE_EXCLUDED_LLM = ("page",)
_UNLOCK_HINT = (
    "remove the password (save an unprotected copy from your PDF viewer, "
    "or run `qpdf --decrypt in.pdf out.pdf`) and upload again"
)


def read_pdf(path: Path) -> list[Part]:
    """One part per page that has text, with ``page`` (1-based) and ``page_label`` metadata."""
    with pdf_warnings_logged(path):
        return _read(path)


@contextlib.contextmanager
def pdf_warnings_logged(path: Path) -> Iterator[None]:
    """Inside this block, ``warnings`` raised (by pypdf) are logged, naming ``path``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        finally:
            for warning in caught:
                logger.warning("%s: %s", path, warning.message)


def _read(path: Path) -> list[Part]:
    data = read_bytes(path)
    if b"%PDF-" not in data[:1024]:
        raise ReaderError(
            path,
            "is not a PDF (no %PDF header)",
            "check the file; rename it if it is another format",
        )
    reader = _open(data, path)
    texts = _page_texts(reader, path)
    labels = _page_labels(reader, len(texts))
    pages = strip_running_lines([text.split("\n") for text in texts])
    parts = [
        Part(
            "\n".join(lines),
            {"page_label": labels[index], "page": index + 1},
            f"#page={index + 1}",
            _PAGE_EXCLUDED_EMBED,
            _PAGE_EXCLUDED_LLM,
        )
        for index, lines in enumerate(pages)
        if lines
    ]
    if not parts:
        raise ReaderError(
            path,
            f"no extractable text in {len(texts)} page(s) (scanned?)",
            "run OCR on it (e.g. `ocrmypdf in.pdf out.pdf`) and upload the result",
        )
    return parts


def _corrupt(path: Path, exc: BaseException) -> ReaderError:
    return ReaderError(
        path,
        f"is damaged or not a valid PDF ({type(exc).__name__}: {exc})",
        "open it in a PDF viewer and save or print it to a new PDF, then upload that",
    )


def _open(data: bytes, path: Path) -> Any:
    from pypdf import PdfReader
    from pypdf.errors import DependencyError

    # pypdf raises many exception types on malformed files (KeyError, ValueError, struct errors,
    # RecursionError...); any of them means the same thing to the user: the file is damaged.
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if not reader.is_encrypted:
            return reader
        unlocked = reader.decrypt("")
    except DependencyError as exc:
        raise ReaderError(
            path, "is encrypted with AES, which needs the 'cryptography' package", _UNLOCK_HINT
        ) from exc
    except Exception as exc:
        raise _corrupt(path, exc) from exc
    if not unlocked:
        raise ReaderError(path, "is encrypted with a password", _UNLOCK_HINT)
    return reader


def _page_texts(reader: Any, path: Path) -> list[str]:
    try:
        pages = list(reader.pages)
    except Exception as exc:
        raise _corrupt(path, exc) from exc
    texts = []
    for number, page in enumerate(pages, start=1):
        try:
            text = page.extract_text() or ""
        except Exception as exc:  # one bad page (a broken font, a bad stream) spares the rest
            logger.warning("%s: page %d skipped, no text can be extracted: %s", path, number, exc)
            text = ""
        texts.append(_clean(text))
    return texts


def _clean(text: str) -> str:
    lines = (line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"))
    return "\n".join(lines).replace("\x00", "")


def _page_labels(reader: Any, count: int) -> list[str]:
    try:
        labels = list(reader.page_labels)
    except Exception as exc:  # a broken label tree must not lose the pages themselves
        logger.warning("page labels unreadable (%s); using page numbers", exc)
        labels = []
    if len(labels) != count:
        labels = [str(number) for number in range(1, count + 1)]
    return labels
