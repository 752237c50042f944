"""Delimited tables (.csv, .tsv): one document per file, each row as "column: value" lines.

Repeating the column name next to every value makes a row readable on its own, so a chunk cut
from the middle of a table still says what each number means. Rows are separated by blank lines
(the splitter's paragraph boundary) so rows stay whole when they fit a chunk. Empty cells are
left out. The first row is the header; .csv delimiters (, ; tab |) are sniffed.

Rows are parsed and rendered one at a time from the decoded text (no list of every row, no
second copy of the file in a ``StringIO``), a few thousand rendered rows joined at a time, so a
million-row file costs little more than its text and the rendered result.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator
from pathlib import Path

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part

_SNIFF_CHARS = 16384
_ROWS_PER_PART = 4096  # rendered rows joined into one string at a time


def read_csv(path: Path) -> list[Part]:
    """One part: every data row rendered as "column: value" lines."""
    text = read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff_delimiter(text)
    rows = (row for row in csv.reader(_lines(text), delimiter=delimiter)
            if any(cell.strip() for cell in row))
    try:
        header = next(rows, None)
        rendered = _render(header or [], rows)
    except csv.Error as exc:
        raise ReaderError(
            path, f"is not a readable table ({exc})", "check the quoting, or save it again as CSV"
        ) from exc
    if header is None or rendered is None:
        raise ReaderError(
            path, "has no data rows (a table needs a header row and at least one row)", "add rows"
        )
    return [Part(rendered)]


def rows_to_text(header: list[str], rows: Iterable[list[str]]) -> str:
    """Rows as blocks of "column: value" lines, blocks separated by blank lines."""
    return _render(header, rows) or ""


def _render(header: list[str], rows: Iterable[list[str]]) -> str | None:
    """``rows_to_text``, or None when there is no row at all."""
    names = [name.strip() or f"column {index}" for index, name in enumerate(header, start=1)]
    parts: list[str] = []
    blocks: list[str] = []
    seen = False
    for row in rows:
        seen = True
        block = "\n".join(
            f"{_column(names, index)}: {value.strip()}"
            for index, value in enumerate(row)
            if value.strip()
        )
        if block:
            blocks.append(block)
        if len(blocks) >= _ROWS_PER_PART:
            parts.append("\n\n".join(blocks))
            blocks = []
    if blocks:
        parts.append("\n\n".join(blocks))
    return "\n\n".join(parts) if seen else None


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` with their newlines (as the csv module wants), one at a time."""
    start, length = 0, len(text)
    while start < length:
        end = text.find("\n", start)
        end = length if end < 0 else end + 1
        yield text[start:end]
        start = end


def _column(names: list[str], index: int) -> str:
    return names[index] if index < len(names) else f"column {index + 1}"


def _sniff_delimiter(text: str) -> str:
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
