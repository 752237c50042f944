"""Word documents (.docx) with python-docx: paragraphs and tables, in document order.

Headings become Markdown-style ``#`` lines and list paragraphs ``-`` items, so the structure the
author gave the document survives as plain text; a table becomes one paragraph with one line per
row and cells joined by `` | ``. The core-properties title, when set, goes into ``title``.
Old binary .doc files are not supported (python-docx reads only the Office Open XML format).
python-docx is imported on first use.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.part import Part

_HEADING_STYLE = re.compile(r"^Heading (\d)$")


def read_docx(path: Path) -> list[Part]:
    """One part: the document's paragraphs and tables, with ``title`` metadata when set."""
    document = _open(read_bytes(path), path)
    blocks = []
    for item in document.iter_inner_content():
        text = _table_text(item) if hasattr(item, "rows") else _paragraph_text(item)
        if text.strip():
            blocks.append(text)
    title = (document.core_properties.title or "").strip()
    return [Part("\n\n".join(blocks), {"title": title} if title else {})]


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


def _paragraph_text(paragraph: Any) -> str:
    text = paragraph.text.strip()
    style = paragraph.style.name if paragraph.style is not None else ""
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
