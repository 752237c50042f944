"""Plain text (.txt, .log, .text, .rst, and files of unknown type read as text).

The text is kept as written, with one exception: paginated text (pages separated by form feeds,
as in RFCs and printer-ready reports) loses its running page headers and footers, and a paragraph
broken across a page boundary is joined again, so a chunk never contains "Fielding, et al.
Standards Track [Page 12]" in the middle of a sentence.

A big UTF-8 text can be read a part at a time (``text_parts``): parts of at most ``PART_CHARS``
characters cut at a page, paragraph, line or word break, each its own document (``#page=N``) and
depaginated on its own, so a text holding one character above U+00FF (four bytes per character
in Python) costs its part in memory, not four times the file.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from pathlib import Path
from typing import Iterator

from ragcore.readers.decoding import (
    _CR, _WIDE_BOMS, clean_text, open_binary, read_text, tidy_text,
)
from ragcore.readers.part import Part

_DIGITS = re.compile(r"\d+")
_SENTENCE_END = (".", ":", "!", "?", ";")
_BLOCK_CHARS = 1 << 20
PARTS_FROM_BYTES = 32 << 20  # a plain text file this big is read a part at a time, if it can be
PART_CHARS = 4 << 20  # characters per part (at most)
_READ_BYTES = 4 << 20


def read_plain_text(path: Path) -> list[Part]:
    """One part: the decoded text, depaginated when it contains form feeds."""
    text = read_text(path)
    if "\f" not in text:
        return [Part(text)]
    blocks = _depaginated_blocks(text)
    del text  # the pages are copied into the blocks: the text goes before they are joined
    return [Part("".join(blocks))]


def text_parts(path: Path, *, from_bytes: int | None = None,
               size: int | None = None) -> Iterator[Part] | None:
    """The parts of a plain text file of ``from_bytes`` (``PARTS_FROM_BYTES``) or more, read one
    at a time, each at most ``size`` (``PART_CHARS``) characters; None when the file is smaller
    or must be read whole (not UTF-8, or NULs: the whole-file reader decides what it is)."""
    least = PARTS_FROM_BYTES if from_bytes is None else from_bytes
    if path.stat().st_size < least or not _plain_utf8(path):
        return None
    return _parts(path, size or PART_CHARS)


def _plain_utf8(path: Path) -> bool:
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open_binary(path) as source:
        if source.read(4).startswith(_WIDE_BOMS):
            return False
        source.seek(0)
        while block := source.read(_READ_BYTES):
            if b"\x00" in block:
                return False
            try:
                decoder.decode(block)
            except UnicodeDecodeError:
                return False
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _parts(path: Path, size: int) -> Iterator[Part]:
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    pending, number, carry = "", 0, b""
    with open_binary(path) as source:
        while True:
            data = source.read(_READ_BYTES)
            block, carry = carry + data, b""
            if data and block.endswith(b"\r"):  # CRLF may continue in the next read
                block, carry = block[:-1], b"\r"
            pending += decoder.decode(_CR.sub(b"\n", block), final=not data)
            while len(pending) > size or (pending and not data):
                end = _part_end(pending, size)
                number += 1
                # the file's start says whether it is text, as when it is read whole: a later
                # part may hold many U+FFFD (a book decoded with errors="replace") and is text
                text = clean_text(pending[:end], path) if number == 1 else tidy_text(pending[:end])
                yield Part(strip_pagination(text), id_suffix=f"#page={number}")
                pending = pending[end:]
            if not data:
                return


def _part_end(text: str, size: int) -> int:
    """Where the first part of ``text`` ends: at its last page, paragraph, line or word break
    in the second half of ``size`` characters (else at ``size``)."""
    if len(text) <= size:
        return len(text)
    for mark in ("\f", "\n\n", "\n", " "):
        at = text.rfind(mark, size // 2, size)
        if at > 0:
            return at + len(mark)
    return size


Page = tuple[int, int]  # a page's body as offsets into the text: its lines, newlines between


def strip_pagination(text: str) -> str:
    """Remove running headers/footers of form-feed separated pages and rejoin the pages.

    Pages are offsets into ``text`` and only their edge lines are looked at, so a 200 MB text
    costs its page bodies and the joined result, not a string per line."""
    if "\f" not in text:
        return text
    return "".join(_depaginated_blocks(text))


def _depaginated_blocks(text: str) -> list[str]:
    return _join_pages(text, _strip_pages(text, _page_spans(text)))


def strip_running_lines(pages: list[list[str]], *, depth: int = 3) -> list[list[str]]:
    """Drop up to ``depth`` header and footer lines that repeat on most pages (page numbers too).

    Each page is a list of lines; blank lines at page edges are trimmed. Fewer than three pages
    are only trimmed: two pages starting alike are not evidence of a running header.
    """
    text = "\f".join("\n".join(lines) for lines in pages)
    spans, start = [], 0
    for lines in pages:
        end = start + sum(map(len, lines)) + max(len(lines) - 1, 0)
        spans.append((start, end))
        start = end + 1
    return [text[a:b].split("\n") if a < b else [] for a, b in _strip_pages(text, spans, depth)]


def _page_spans(text: str) -> list[Page]:
    spans, start = [], 0
    while (end := text.find("\f", start)) >= 0:
        spans.append((start, end))
        start = end + 1
    return spans + [(start, len(text))]


def _strip_pages(text: str, pages: list[Page], depth: int = 3) -> list[Page]:
    pages = [_trim_blank(text, page) for page in pages]
    if len(pages) < 3:
        return pages
    for _ in range(depth):
        headers = _running_lines(text, pages, first=True)
        footers = _running_lines(text, pages, first=False)
        if not headers and not footers:
            break
        pages = [_page_body(text, page, headers, footers) for page in pages]
    return pages


def _shape(line: str) -> str:
    """A line with its whitespace squeezed and numbers masked: page 3 and page 4 look alike."""
    return _DIGITS.sub("#", " ".join(line.split()))


def _first_line(text: str, page: Page) -> str:
    start, end = page
    cut = text.find("\n", start, end)
    return text[start : end if cut < 0 else cut]


def _last_line(text: str, page: Page) -> str:
    start, end = page
    cut = text.rfind("\n", start, end)
    return text[start if cut < 0 else cut + 1 : end]


def _running_lines(text: str, pages: list[Page], *, first: bool) -> set[str]:
    """Shapes of header (or footer) lines repeated on at least half the pages (and twice)."""
    edge = _first_line if first else _last_line
    counts = Counter(_shape(edge(text, page)) for page in pages)
    threshold = max(2, len(pages) // 2)
    return {shape for shape, n in counts.items() if shape and n >= threshold}


def _page_body(text: str, page: Page, headers: set[str], footers: set[str]) -> Page:
    start, end = page
    if start < end and _shape(_first_line(text, page)) in headers:
        cut = text.find("\n", start, end)
        start, end = _trim_blank(text, (end if cut < 0 else cut + 1, end))
    if start < end and _shape(_last_line(text, (start, end))) in footers:
        cut = text.rfind("\n", start, end)
        start, end = _trim_blank(text, (start, start if cut < 0 else cut))
    return start, end


def _trim_blank(text: str, page: Page) -> Page:
    """The page without its leading and trailing blank lines."""
    start, end = page
    while start < end and not _first_line(text, (start, end)).strip():
        cut = text.find("\n", start, end)
        start = end if cut < 0 else cut + 1
    while end > start and not _last_line(text, (start, end)).strip():
        cut = text.rfind("\n", start, end)
        end = start if cut < 0 else cut
    return start, end


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _join_pages(text: str, pages: list[Page]) -> list[str]:
    """Page bodies joined into blocks of about a million characters (a paragraph cut by the
    page break continues on the next page's line). Blocks, not one string: a caller done with
    ``text`` lets it go before joining them, so a wide text is never held three times."""
    blocks: list[str] = []
    pieces: list[str] = []
    held = 0
    previous: Page | None = None
    for page in (p for p in pages if p[0] < p[1]):
        if previous is not None:
            last, first = _last_line(text, previous), _first_line(text, page)
            ends_sentence = last.rstrip().endswith(_SENTENCE_END)
            pieces.append("\n\n" if ends_sentence or _indent(last) != _indent(first) else "\n")
        pieces.append(text[page[0] : page[1]])
        held += page[1] - page[0]
        previous = page
        if held >= _BLOCK_CHARS:
            blocks.append("".join(pieces))
            pieces, held = [], 0
    pieces.append("\n")
    blocks.append("".join(pieces))
    return blocks
