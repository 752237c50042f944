"""E-books (.epub) with ebooklib: one part per chapter, in reading (spine) order.

Each XHTML document of the book's spine is a chapter; its visible text comes from the HTML
reader's ``html_to_text``, so chapters read exactly like uploaded web pages. A part has
``chapter_number`` (its position among the chapters with text), ``chapter`` (its title: the
table of contents entry, else the page's <title> or first line) and ``title`` (the book's
title). The table-of-contents page and pages without text (covers, images) are skipped.
DRM-protected books cannot be read. ebooklib is imported on first use, and hostile archives are
refused before it parses them (``zip_limits``).
"""

from __future__ import annotations

import io
import re
import warnings
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import decode_text, read_bytes
from ragcore.readers.html_text import html_to_text
from ragcore.readers.part import Part
from ragcore.readers.office.zip_limits import ZipLimits, check_zip

# A 2,000-page illustrated book expands to ~100 MB and holds tens of thousands of paragraphs.
MAX_EPUB_EXPANDED_BYTES = 512 * 1024 * 1024
MAX_EPUB_PARAGRAPHS = 500_000
_MAX_TITLE_CHARS = 120


def read_epub(path: Path) -> list[Part]:
    """One part per chapter with text: ``chapter``, ``chapter_number`` and the book's ``title``."""
    data = read_bytes(path)
    check_zip(data, path, _limits())
    book = _open(data, path)
    book_title = _book_title(book)
    toc_titles = _toc_titles(book)
    parts = []
    for item in _spine_documents(book):
        content = item.get_content()
        if not content.strip():
            continue
        page_title, text = html_to_text(decode_text(content, path))
        if not text.strip():
            continue
        number = len(parts) + 1
        chapter = toc_titles.get(item.get_name()) or page_title or _first_line(text)
        metadata: dict[str, Any] = {"chapter": chapter, "chapter_number": number}
        if book_title:
            metadata["title"] = book_title
        parts.append(Part(text, metadata, f"#page={number}", ("chapter_number",),
                          ("chapter_number",)))
    if not parts:
        raise ReaderError(
            path,
            "has no chapter with text (an image-only or DRM-protected book?)",
            "remove the DRM with the tool of the shop you bought it from, or upload a text copy",
        )
    return parts


def _limits() -> ZipLimits:
    return ZipLimits(
        kind=".epub",
        max_expanded_bytes=MAX_EPUB_EXPANDED_BYTES,
        members=re.compile(r".+\.(?:x?html?|xml)", re.IGNORECASE),
        element=re.compile(rb"<(?:\w+:)?p[ >/]"),
        element_name="paragraphs",
        max_elements=MAX_EPUB_PARAGRAPHS,
        hint="split the book, or convert it to plain text (e.g. with Calibre) and upload that",
    )


def _open(data: bytes, path: Path) -> Any:
    from ebooklib import epub

    try:
        with warnings.catch_warnings():
            # ebooklib warns about its own future defaults on every read: nothing for the user.
            warnings.simplefilter("ignore")
            return epub.read_epub(io.BytesIO(data), {"ignore_ncx": False})
    except Exception as exc:
        raise ReaderError(
            path,
            f"is not a valid .epub file ({type(exc).__name__}: {exc})",
            "open it in an e-book reader or Calibre and save or convert it to EPUB again",
        ) from exc


def _spine_documents(book: Any) -> list[Any]:
    """The spine's XHTML documents in reading order, each once, the contents page left out."""
    import ebooklib
    from ebooklib import epub

    items, seen = [], set()
    for entry in book.spine:
        idref = entry[0] if isinstance(entry, (tuple, list)) else entry
        item = book.get_item_with_id(idref)
        if item is None or item.get_type() != ebooklib.ITEM_DOCUMENT or idref in seen:
            continue
        if isinstance(item, epub.EpubNav) or "nav" in (getattr(item, "properties", None) or []):
            continue  # the table of contents page: titles only, already in the metadata
        seen.add(idref)
        items.append(item)
    return items


def _book_title(book: Any) -> str:
    titles = book.get_metadata("DC", "title")
    return " ".join(str(titles[0][0]).split()) if titles and titles[0][0] else ""


def _toc_titles(book: Any) -> dict[str, str]:
    """Chapter file name -> its table-of-contents title (the first entry naming that file)."""
    titles: dict[str, str] = {}
    stack = list(reversed(book.toc if isinstance(book.toc, (list, tuple)) else []))
    while stack:
        entry = stack.pop()
        if isinstance(entry, (tuple, list)):  # a section: (link, children)
            stack.extend(reversed([*entry[1]]))
            stack.append(entry[0])
            continue
        href = getattr(entry, "href", "") or ""
        title = " ".join(str(getattr(entry, "title", "") or "").split())
        file_name = href.split("#", 1)[0]
        if file_name and title:
            titles.setdefault(file_name, title)
    return titles


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0].strip()
    return line[:_MAX_TITLE_CHARS]
