"""Word documents (.docx) with python-docx: paragraphs and tables, in document order.

Headings become Markdown-style ``#`` lines and list paragraphs ``-`` items, so the structure the
author gave the document survives as plain text; a table becomes one paragraph with one line per
row and cells joined by `` | ``. The core-properties title, when set, goes into ``title``.
Old binary .doc files are not supported (python-docx reads only the Office Open XML format).
python-docx is imported on first use.

Hostile files are refused before python-docx parses them (``zip_limits``): the zip's declared
member sizes are summed (a "zip bomb" expanding to gigabytes) and ``<w:p`` openings in the main
document part are counted (millions of tiny paragraphs) against generous limits. Paragraph styles
are resolved from one style-id map per document, so reading is linear in the paragraph count.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.part import Part
from ragcore.readers.office.zip_limits import ZipLimits, check_zip

_HEADING_STYLE = re.compile(r"^Heading (\d)$")

# Far above real documents (a 1,000-page report has ~30,000 paragraphs and expands to tens of MB).
MAX_DOCX_EXPANDED_BYTES = 256 * 1024 * 1024
MAX_DOCX_PARAGRAPHS = 200_000
_DOCUMENT_PART = re.compile(r"word/document\.xml")
_PARAGRAPH_OPEN = re.compile(rb"<w:p[ >/]")


def read_docx(path: Path) -> list[Part]:
    """One part: the document's paragraphs and tables, with ``title`` metadata when set."""
    data = read_bytes(path)
    check_zip(data, path, _limits())
    document = _open(data, path)
    styles = _style_names(document)
    blocks = []
    for item in document.iter_inner_content():
        text = _table_text(item) if hasattr(item, "rows") else _paragraph_text(item, styles)
        if text.strip():
            blocks.append(text)
    title = (document.core_properties.title or "").strip()
    return [Part("\n\n".join(blocks), {"title": title} if title else {})]


def _limits() -> ZipLimits:
    # Read at call time, so a test (or a deployment) can lower the module's limits.
    return ZipLimits(
        kind=".docx",
        max_expanded_bytes=MAX_DOCX_EXPANDED_BYTES,
        members=_DOCUMENT_PART,
        element=_PARAGRAPH_OPEN,
        element_name="paragraphs",
        max_elements=MAX_DOCX_PARAGRAPHS,
        hint="split it into smaller documents or export its text as .txt",
    )


def _style_names(document: Any) -> dict[str | None, str]:
    """Paragraph style id -> style name, built once (python-docx scans every style per lookup).

    The ``None`` key holds the default paragraph style, used for unstyled paragraphs and for
    ids that name no paragraph style (as python-docx's own lookup does).
    """
    from docx.enum.style import WD_STYLE_TYPE

    names: dict[str | None, str] = {}
    for style in document.styles:
        if style.type == WD_STYLE_TYPE.PARAGRAPH and style.style_id is not None:
            names[style.style_id] = style.name or ""
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    names[None] = (default.name or "") if default is not None else ""
    return names


def _open(data: bytes, path: Path) -> Any:
    from docx import Document as open_docx

    # python-docx fails on a non-.docx file with whatever its zip or XML layer raises
    # (BadZipFile, KeyError, ValueError, PackageNotFoundError...): all mean "not a valid .docx".
    try:
        return open_docx(io.BytesIO(data))
    except Exception as exc:
        raise ReaderError(
            path,
            f"is not a valid .docx file ({type(exc).__name__}: {exc})",
            "open it in Word or LibreOffice and save it as .docx (Word 2007 or later); "
            "old .doc files must be converted first",
        ) from exc


def _paragraph_text(paragraph: Any, styles: dict[str, str]) -> str:
    text = paragraph.text.strip()
    style = styles.get(paragraph._p.style, styles[None])
    heading = _HEADING_STYLE.match(style)
    if heading and text:
        return f"{'#' * int(heading.group(1))} {text}"
    if style == "Title" and text:
        return f"# {text}"
    if style.startswith("List") and text:
        return f"- {text}"
    return text


def _table_text(table: Any) -> str:
    lines = []
    for row in table.rows:
        cells: list[str] = []
        seen: set[int] = set()
        for cell in row.cells:
            # A merged cell is returned once per grid column it spans: keep it once.
            if id(cell._tc) in seen:
                continue
            seen.add(id(cell._tc))
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            lines.append(" | ".join(cells))
    return "\n".join(lines)
