"""Plain text (.txt, .log, .text, .rst, and files of unknown type read as text).

The text is kept as written, with one exception: paginated text (pages separated by form feeds,
as in RFCs and printer-ready reports) loses its running page headers and footers, and a paragraph
broken across a page boundary is joined again, so a chunk never contains "Fielding, et al.
Standards Track [Page 12]" in the middle of a sentence.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part

_DIGITS = re.compile(r"\d+")
_SENTENCE_END = (".", ":", "!", "?", ";")


def read_plain_text(path: Path) -> list[Part]:
    """One part: the decoded text, depaginated when it contains form feeds."""
    return [Part(strip_pagination(read_text(path)))]


def strip_pagination(text: str) -> str:
    """Remove running headers/footers of form-feed separated pages and rejoin the pages."""
    if "\f" not in text:
        return text
    pages = strip_running_lines([page.split("\n") for page in text.split("\f")])
    return _join_pages([lines for lines in pages if lines])


def strip_running_lines(pages: list[list[str]], *, depth: int = 3) -> list[list[str]]:
    """Drop up to ``depth`` header and footer lines that repeat on most pages (page numbers too).

    Each page is a list of lines; blank lines at page edges are trimmed. Fewer than three pages
    are only trimmed: two pages starting alike are not evidence of a running header.
    """
    pages = [_trim_blank(lines) for lines in pages]
    if len(pages) < 3:
        return pages
    for _ in range(depth):
        headers = _running_lines(pages, first=True)
        footers = _running_lines(pages, first=False)
        if not headers and not footers:
            break
        pages = [_page_body(lines, headers, footers) for lines in pages]
    return pages


def _shape(line: str) -> str:
    """A line with its whitespace squeezed and numbers masked: page 3 and page 4 look alike."""
    return _DIGITS.sub("#", " ".join(line.split()))


def _edge_line(lines: list[str], *, first: bool) -> str:
    if not lines:
        return ""
    return lines[0] if first else lines[-1]


def _running_lines(pages: list[list[str]], *, first: bool) -> set[str]:
    """Shapes of header (or footer) lines repeated on at least half the pages (and twice)."""
    counts = Counter(_shape(_edge_line(lines, first=first)) for lines in pages)
    threshold = max(2, len(pages) // 2)
    return {shape for shape, n in counts.items() if shape and n >= threshold}


def _page_body(lines: list[str], headers: set[str], footers: set[str]) -> list[str]:
    if lines and _shape(lines[0]) in headers:
        lines = _trim_blank(lines[1:])
    if lines and _shape(lines[-1]) in footers:
        lines = _trim_blank(lines[:-1])
    return lines


def _trim_blank(lines: list[str]) -> list[str]:
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join_pages(bodies: list[list[str]]) -> str:
    """Join page bodies: a paragraph cut by the page break continues on the next page's line."""
    out: list[str] = []
    for body in bodies:
        if out:
            last, first = out[-1], body[0]
            ends_sentence = last.rstrip().endswith(_SENTENCE_END)
            if ends_sentence or _indent(last) != _indent(first):
                out.append("")
        out.extend(body)
    return "\n".join(out) + "\n"
