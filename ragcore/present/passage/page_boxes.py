"""Where a passage sits on a PDF page: its characters found in the page's text layer, their boxes
merged into one rectangle per line, in image pixels for a rendered page.

The PDF reader cleans a page's text (hyphens, bullets, running headers, split words: ``pdf.py``),
so a chunk's character offsets point into the cleaned text, not into PDFium's characters. The
passage is found again by its letters and digits alone, which the cleaning never changes:
"enterprise-owned" and PDFium's "enterprise\\ufffeowned" both read "enterpriseowned", "possible"
and "possi\\ufffeble" both "possible". Then every character of the passage (and of each cited span)
maps to a PDFium character index, whose box the text layer gives. No I/O: the caller passes the
page's text and boxes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

Box = tuple[float, float, float, float]  # left, bottom, right, top, in PDF points
Span = tuple[int, int]
# When the passage is not found whole (an OCR page, a chunk that crosses a removed header), its
# first and last this-many letters and digits are looked for instead.
ENDS = 40


@dataclass(frozen=True, slots=True)
class Rect:
    """A rectangle in image pixels, origin top left."""

    left: float
    top: float
    right: float
    bottom: float


def _alnum(text: str) -> tuple[str, list[int]]:
    """The letters and digits of ``text``, lower case, with each one's index in ``text``."""
    kept = [(c.lower(), i) for i, c in enumerate(text) if c.isalnum()]
    return "".join(c for c, _ in kept), [i for _, i in kept]


def locate(page_text: str, passage: str, spans: Sequence[Span] = ()) -> list[Span]:
    """Spans of ``page_text`` (PDFium's characters) holding ``spans`` of ``passage`` (all of
    ``passage`` when none are given); [] when the passage is not on the page."""
    page, page_index = _alnum(page_text)
    letters, passage_index = _alnum(passage)
    if not letters or not page_index:
        return []
    start = page.find(letters)
    if start < 0:
        return _by_ends(page, page_index, letters, spans)
    found = []
    for a, b in spans or [(0, len(passage))]:
        inside = [k for k, i in enumerate(passage_index) if a <= i < b]
        if inside:
            found.append((page_index[start + inside[0]], page_index[start + inside[-1]] + 1))
    return found


def _by_ends(page: str, page_index: list[int], letters: str, spans: Sequence[Span]) -> list[Span]:
    if spans:  # without the whole passage, cited parts cannot be placed: mark nothing wrongly
        return []
    head = page.find(letters[:ENDS])
    tail = page.find(letters[-ENDS:], max(head, 0))
    if head < 0 or tail < 0:
        return []
    return [(page_index[head], page_index[tail + min(ENDS, len(letters)) - 1] + 1)]


def line_boxes(boxes: Sequence[Box | None], text: str, span: Span) -> list[Box]:
    """The boxes of the characters in ``span`` merged into one box per line of text.

    ``boxes[i]`` is the box of ``text[i]`` (None or empty for characters PDFium made up, such as
    line breaks); blanks do not start a line's box.
    """
    lines: list[list[float]] = []
    for index in range(span[0], span[1]):
        box = boxes[index]
        if box is None or text[index].isspace() or box[2] <= box[0] or box[3] <= box[1]:
            continue
        left, bottom, right, top = box
        line = lines[-1] if lines else None
        middle = (bottom + top) / 2
        if line and line[1] <= middle <= line[3] and left >= line[0] - 1:
            line[1], line[2], line[3] = min(line[1], bottom), max(line[2], right), max(line[3], top)
        else:
            lines.append([left, bottom, right, top])
    return [tuple(line) for line in lines]  # type: ignore[misc]


def to_pixels(box: Box, page_height: float, scale: float, pad: float = 1.5) -> Rect:
    """A box in PDF points (origin bottom left) as a rectangle of the page image at ``scale``."""
    left, bottom, right, top = box
    return Rect((left - pad) * scale, (page_height - top - pad) * scale,
                (right + pad) * scale, (page_height - bottom + pad) * scale)


def highlight_rects(page_text: str, boxes: Sequence[Box | None], passage: str,
                    spans: Sequence[Span], *, page_height: float, scale: float
                    ) -> tuple[list[Rect], list[Rect]]:
    """Rectangles of the whole passage and of its cited ``spans`` on the page image."""
    def rects(found: list[Span]) -> list[Rect]:
        return [to_pixels(box, page_height, scale)
                for span in found for box in line_boxes(boxes, page_text, span)]

    cited = rects(locate(page_text, passage, spans)) if spans else []
    return rects(locate(page_text, passage)), cited


def focus_window(rects: Sequence[Rect], width: float, height: float, *, margin: float = 0.08,
                 most: float = 0.8) -> tuple[int, int, int, int] | None:
    """The band of a page image (left, top, right, bottom in pixels, full width) holding
    ``rects`` with ``margin`` of the page's height above and below, so the passage shows without
    scrolling; None when there is nothing to show or the band would be ``most`` of the page."""
    if not rects:
        return None
    top = max(0.0, min(r.top for r in rects) - margin * height)
    bottom = min(height, max(r.bottom for r in rects) + margin * height)
    if bottom - top >= most * height:
        return None
    return 0, int(top), int(width), int(round(bottom))
