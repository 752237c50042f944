"""Delimited tables (.csv, .tsv): one document per file, each row as "column: value" lines.

Repeating the column name next to every value makes a row readable on its own, so a chunk cut
from the middle of a table still says what each number means. Rows are separated by blank lines
(the splitter's paragraph boundary) so rows stay whole when they fit a chunk. Empty cells are
left out. The first row is the header; .csv delimiters (, ; tab |) are sniffed.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ragcore.errors import ReaderError
from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part

_SNIFF_CHARS = 16384


def read_csv(path: Path) -> list[Part]:
    """One part: every data row rendered as "column: value" lines."""
    text = read_text(path)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff_delimiter(text)
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as exc:
        raise ReaderError(
            path, f"is not a readable table ({exc})", "check the quoting, or save it again as CSV"
        ) from exc
    rows = [row for row in rows if any(cell.strip() for cell in row)]
    if len(rows) < 2:
        raise ReaderError(
            path, "has no data rows (a table needs a header row and at least one row)", "add rows"
        )
    return [Part(rows_to_text(rows[0], rows[1:]))]


def rows_to_text(header: list[str], rows: list[list[str]]) -> str:
    """Rows as blocks of "column: value" lines, blocks separated by blank lines."""
    names = [name.strip() or f"column {index}" for index, name in enumerate(header, start=1)]
    blocks = []
    for row in rows:
        lines = [
            f"{_column(names, index)}: {value.strip()}"
            for index, value in enumerate(row)
            if value.strip()
        ]
        blocks.append("\n".join(lines))
    return "\n\n".join(block for block in blocks if block)


def _column(names: list[str], index: int) -> str:
    return names[index] if index < len(names) else f"column {index + 1}"


def _sniff_delimiter(text: str) -> str:
    try:
        return csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=",;\t|").delimiter
    except csv.Error:
        return ","
