"""One PDF page as a picture with its text layer: the image, PDFium's characters and their boxes.

The PDF reader (``pdf.py``) reads text for indexing; this sibling serves "Open in document":
``page_with_boxes`` renders a page and returns PDFium's raw characters and each one's box, which
``ragcore.present.passage.page_boxes`` matches against a cited passage. Calls into PDFium hold the
reader's process-wide lock (PDFium is not thread-safe).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_bytes
from ragcore.readers.pdf.reader import PDFIUM_LOCK


@dataclass(frozen=True, slots=True)
class RenderedPage:
    """A page image at ``scale`` pixels per point, its text and a box per character."""

    image: Any  # PIL.Image
    text: str
    boxes: tuple[tuple[float, float, float, float] | None, ...]
    height: float  # in points
    scale: float


def page_with_boxes(path: Path, page: int, *, scale: float = 1.6) -> RenderedPage:
    """Page ``page`` (1-based) of the PDF at ``path``, rendered, with its characters' boxes."""
    import pypdfium2 as pdfium

    data = read_bytes(path)
    with PDFIUM_LOCK:
        try:
            document = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            raise ReaderError(path, f"cannot be opened ({exc})", "upload the file again") from exc
        try:
            if not 1 <= page <= len(document):
                raise ReaderError(path, f"has no page {page} (it has {len(document)})",
                                  "re-index the file: it changed since it was indexed")
            return _render(document[page - 1], scale)
        finally:
            document.close()


def _render(page: Any, scale: float) -> RenderedPage:
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
            boxes = tuple(textpage.get_charbox(i) for i in range(len(text)))
        finally:
            textpage.close()
        image = page.render(scale=scale).to_pil()
        return RenderedPage(image, text, boxes, page.get_size()[1], scale)
    finally:
        page.close()
