"""PowerPoint (.pptx) with python-pptx: one part per slide, with its title, tables and notes.

A slide is what a presenter cites, so like a PDF page each slide is its own document, with
``slide`` (its 1-based number, also as ``page`` and ``page_label`` so citations read "page 3" as
for a PDF) and ``title`` when the slide has a title placeholder. The text is the slide's shapes in
reading order (top to bottom, then left to right; groups opened), a table as one line per row
with cells joined by `` | ``, then the speaker notes under a "Notes:" line. Slides without text
are skipped. Old binary .ppt files are not supported. python-pptx is imported on first use, and
hostile archives are refused before it parses them (``zip_limits``).
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

# A 500-slide deck expands to tens of MB and holds tens of thousands of paragraphs.
MAX_PPTX_EXPANDED_BYTES = 256 * 1024 * 1024
MAX_PPTX_PARAGRAPHS = 200_000
_EXCLUDED_EMBED = ("slide", "page", "page_label")
_EXCLUDED_LLM = ("page", "page_label")


def read_pptx(path: Path) -> list[Part]:
    """One part per slide that has text, with ``slide``, ``page``, ``page_label``, ``title``."""
    data = read_bytes(path)
    check_zip(data, path, _limits())
    presentation = _open(data, path)
    parts = []
    for number, slide in enumerate(presentation.slides, start=1):
        title = _title(slide)
        blocks = [text for shape in _in_reading_order(slide.shapes) if (text := _shape_text(shape))]
        notes = _notes(slide)
        if notes:
            blocks.append(f"Notes:\n{notes}")
        if not blocks:
            continue
        metadata: dict[str, Any] = {"slide": number, "page": number, "page_label": str(number)}
        if title:
            metadata["title"] = title
        parts.append(
            Part("\n\n".join(blocks), metadata, f"#page={number}", _EXCLUDED_EMBED, _EXCLUDED_LLM)
        )
    return parts


def _limits() -> ZipLimits:
    return ZipLimits(
        kind=".pptx",
        max_expanded_bytes=MAX_PPTX_EXPANDED_BYTES,
        members=re.compile(r"ppt/(slides|notesSlides)/\w+\.xml"),
        element=re.compile(rb"<a:p[ >/]"),
        element_name="paragraphs",
        max_elements=MAX_PPTX_PARAGRAPHS,
        hint="split the presentation, or export its text (File > Export) and upload that",
    )


def _open(data: bytes, path: Path) -> Any:
    from pptx import Presentation

    # python-pptx fails on a non-.pptx file with whatever its zip or XML layer raises.
    try:
        return Presentation(io.BytesIO(data))
    except Exception as exc:
        raise ReaderError(
            path,
            f"is not a valid .pptx file ({type(exc).__name__}: {exc})",
            "open it in PowerPoint or LibreOffice Impress and save it as .pptx; "
            "old .ppt files must be converted first",
        ) from exc


def _title(slide: Any) -> str:
    shape = slide.shapes.title
    return " ".join(shape.text_frame.text.split()) if shape is not None else ""


def _in_reading_order(shapes: Any) -> list[Any]:
    """Shapes top to bottom, left to right; shapes without a position keep their order last."""
    placed = [s for s in shapes if s.top is not None and s.left is not None]
    unplaced = [s for s in shapes if s.top is None or s.left is None]
    return sorted(placed, key=lambda s: (s.top, s.left)) + unplaced


def _shape_text(shape: Any) -> str:
    if hasattr(shape, "shapes"):  # a group shape: its members, in reading order
        texts = (_shape_text(inner) for inner in _in_reading_order(shape.shapes))
        return "\n\n".join(text for text in texts if text)
    if getattr(shape, "has_table", False):
        return _table_text(shape.table)
    if getattr(shape, "has_text_frame", False):
        return _frame_text(shape.text_frame)
    return ""


def _frame_text(frame: Any) -> str:
    lines = []
    for paragraph in frame.paragraphs:
        text = paragraph.text.strip()
        if text:
            lines.append(("  " * paragraph.level) + text if paragraph.level else text)
    return "\n".join(lines)


def _table_text(table: Any) -> str:
    lines = []
    for row in table.rows:
        cells = [" ".join(cell.text.split()) for cell in row.cells if not cell.is_spanned]
        if any(cells):
            lines.append(" | ".join(cells))
    return "\n".join(lines)


def _notes(slide: Any) -> str:
    if not slide.has_notes_slide:
        return ""
    frame = slide.notes_slide.notes_text_frame
    return _frame_text(frame) if frame is not None else ""
