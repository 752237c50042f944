"""One file to Documents: pick the reader by extension, add file metadata and stable ids.

``load_file`` is the single entry point every caller uses (the directory reader, the workspace,
the CLI). It chooses a reader from ``READERS``; a file whose extension the table does not know
(or that has none) is read by its content (``sniff``: text as text, a PDF or Office file by its
signature, other binary files refused with a clear message), then turns each returned ``Part``
into a ``Document``:
file metadata (path, name, MIME type, size, creation and modification dates, never the
last-accessed date, which changes on every read and would defeat change detection) plus the
part's own metadata, and a stable id: the resolved path (or ``doc_id_base``) plus the part's
suffix, e.g. ``/data/report.pdf#page=3``. Every document of the file also carries the file's
card (title, authors, date, abstract: ``ragcore.cards``), in metadata the embedder and the LLM
header do not see.
"""

from __future__ import annotations

import mimetypes
import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from ragcore.cards import attach_card
from ragcore.errors import ReaderError
from ragcore.readers.email_message import read_email
from ragcore.readers.office.epub import read_epub
from ragcore.readers.html_text import read_html
from ragcore.readers.json_text import read_json, read_jsonl
from ragcore.readers.markdown import read_markdown
from ragcore.readers.notebook import read_notebook
from ragcore.readers.part import Part
from ragcore.readers.pdf.reader import OcrProgress, read_pdf
from ragcore.readers.office.pptx import read_pptx
from ragcore.readers.rtf import read_rtf
from ragcore.readers.sniff import read_by_content
from ragcore.readers.tables import read_csv
from ragcore.readers.text import read_plain_text
from ragcore.readers.office.word import read_docx
from ragcore.readers.office.xlsx import read_xlsx
from ragcore.types import DEFAULT_EXCLUDED_EMBED_KEYS, DEFAULT_EXCLUDED_LLM_KEYS, Document

FileReader = Callable[[Path], list[Part]]

READERS: dict[str, FileReader] = {
    ".txt": read_plain_text,
    ".text": read_plain_text,
    ".log": read_plain_text,
    ".rst": read_plain_text,
    ".md": read_markdown,
    ".markdown": read_markdown,
    ".pdf": read_pdf,
    ".docx": read_docx,
    ".html": read_html,
    ".htm": read_html,
    ".xhtml": read_html,
    ".csv": read_csv,
    ".tsv": read_csv,
    ".json": read_json,
    ".jsonl": read_jsonl,
    ".ipynb": read_notebook,
    ".pptx": read_pptx,
    ".xlsx": read_xlsx,
    ".xlsm": read_xlsx,
    ".epub": read_epub,
    ".rtf": read_rtf,
    ".eml": read_email,
}
# The formats read by name. Any other file is still read when its content is text (or a PDF,
# Office or EPUB file without its extension), so a file picker should accept every extension.
SUPPORTED_EXTENSIONS: tuple[str, ...] = tuple(sorted(READERS))
ACCEPTS_ANY_EXTENSION = True

MIME_TYPES: dict[str, str] = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".log": "text/plain",
    ".rst": "text/x-rst",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".pdf": "application/pdf",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".html": "text/html",
    ".htm": "text/html",
    ".xhtml": "application/xhtml+xml",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".ipynb": "application/x-ipynb+json",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    ".xlsm": "application/vnd.ms-excel.sheet.macroEnabled.12",
    ".epub": "application/epub+zip",
    ".rtf": "application/rtf",
    ".eml": "message/rfc822",
}


# No real word, URL or inline image comes near this; a longer run without any whitespace is
# generated or binary data that would only become thousands of meaningless chunks.
MAX_WORD_CHARS = 1_000_000
_WORD = re.compile(r"\S+")


def load_file(path: str | Path, *, doc_id_base: str | None = None,
              ocr_progress: OcrProgress | None = None) -> list[Document]:
    """Read one file into Documents (one per PDF page, slide, sheet, chapter or JSON Lines
    record, else one); ``ocr_progress(done, total)`` hears of a PDF's pages read by OCR.

    Raises ReaderError(path, problem, hint) when the file cannot be read or holds no text.
    """
    path = Path(path)
    reader = READERS.get(path.suffix.lower())
    if reader is read_pdf and ocr_progress is not None:
        found = read_pdf(path, ocr_progress=ocr_progress)
    else:
        found = reader(path) if reader else read_by_content(path, READERS, MIME_TYPES)
    return list(iter_documents(path, found, doc_id_base=doc_id_base))


def iter_documents(path: Path, parts: Iterable[Part], *,
                   doc_id_base: str | None = None) -> Iterator[Document]:
    """The Documents of ``parts`` of the file ``path``, made one at a time as ``parts`` yields
    them (a reader reading a big file a part at a time never holds it whole), each with the
    file's card (``ragcore.cards.attach_card``: made from the first parts, which it holds
    until it has read them); raises ReaderError as ``load_file`` does, for a part when it
    comes."""
    return attach_card(_documents(path, parts, doc_id_base))


def _documents(path: Path, parts: Iterable[Part], doc_id_base: str | None) -> Iterator[Document]:
    metadata = file_metadata(path)
    base = doc_id_base if doc_id_base is not None else metadata["file_path"]
    empty = True
    for part in parts:
        if _WORD.search(part.text):  # strip() would copy it
            _check_word_breaks(part.text, path)
            empty = False
            yield _document(part, base, metadata)
    if empty:
        raise ReaderError(path, "contains no text", "check that the file has readable content")


def _check_word_breaks(text: str, path: Path) -> None:
    """Refuse text holding a run of over MAX_WORD_CHARS characters without whitespace."""
    if len(text) <= MAX_WORD_CHARS:
        return
    for word in _WORD.finditer(text):
        if word.end() - word.start() > MAX_WORD_CHARS:
            raise ReaderError(
                path,
                f"has {word.end() - word.start():,} characters without a word break (over "
                f"{MAX_WORD_CHARS:,}): it looks like binary or generated data, not prose",
                "leave the file out, or convert it to readable text first",
            )


def file_metadata(path: Path) -> dict[str, Any]:
    """file_path, file_name, file_type (MIME), file_size and ISO creation/modification dates."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ReaderError(path, f"cannot be inspected ({exc.strerror or exc})", "check it") from exc
    # st_birthtime is the real creation time where the OS records it; Linux offers only ctime.
    created = getattr(stat, "st_birthtime", None) or stat.st_ctime
    return {
        "file_path": str(path.resolve()),
        "file_name": path.name,
        "file_type": mime_type(path),
        "file_size": stat.st_size,
        "creation_date": _iso_date(created),
        "last_modified_date": _iso_date(stat.st_mtime),
    }


def mime_type(path: Path) -> str:
    """The MIME type by extension (unknown types are read as text: text/plain by default)."""
    known = MIME_TYPES.get(path.suffix.lower())
    return known or mimetypes.guess_type(path.name)[0] or "text/plain"


def _iso_date(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, tz=timezone.utc).date().isoformat()


def _document(part: Part, base: str, file_meta: dict[str, Any]) -> Document:
    return Document(
        text=part.text,
        doc_id=f"{base}{part.id_suffix}",
        metadata={**file_meta, **part.metadata},
        excluded_embed_metadata_keys=_merge(DEFAULT_EXCLUDED_EMBED_KEYS, part.excluded_embed_keys),
        excluded_llm_metadata_keys=_merge(DEFAULT_EXCLUDED_LLM_KEYS, part.excluded_llm_keys),
    )


def _merge(defaults: tuple[str, ...], extra: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys((*defaults, *extra)))
