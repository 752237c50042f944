"""A table read as its rows: which units of a passage are tables, and what names one.

The sentence rule (``chunking.sentences``) finds no break inside a table: its rows, a PDF's or
Markdown's, come out as one unit of many lines, too long for a reading budget to keep, though
the answer is one row ("| 128-bit | `i128` | `u128` |"). The sentence optimizer reads such a
unit line by line (``rows_of_tables``); a unit whose lines continue one another in lower case
is prose wrapped over lines, and stays whole. A sentence that names a table ("Table 3-1 shows
the built-in integer types", a caption "TABLE G-3: ...") announces what follows, as a colon
does (``names_table``).
"""

from __future__ import annotations

import re

from ..tokens import count_tokens

LINE_SPLIT_TOKENS = 60  # a unit of several lines this long is read line by line (a table)
TABLE_CONTINUED = 0.2  # share of a table's lines that may start in lower case
# A line going on with a sentence: a lower-case word, then a space or a mark of prose.
_PROSE_GOES_ON = re.compile(r"[a-z][a-z'’-]*(?:[\s,;:.!?)]|$)")
_NAMES_TABLE = re.compile(
    r"^\s*(?:<span[^>]*>\s*)?table\s+[A-Z]?-?\d+(?:[-.]\d+)*\s*[:.\u2013\u2014-]"
    r"|\btable\s+[A-Z]?-?\d+(?:[-.]\d+)*\s+(?:shows|lists|gives|summari[sz]es|presents)\b"
    r"|\bthe following table\b", re.IGNORECASE)


def names_table(text: str) -> bool:
    """Whether ``text`` is a table's caption or points at the table after it."""
    return _NAMES_TABLE.search(text) is not None


def rows_of_tables(parts: list[str]) -> list[str]:
    """``parts`` with each unit of at least ``LINE_SPLIT_TOKENS`` that reads as rows
    (``_tabular``: a table, the sentence rule finds no break in it) split into its lines, each
    with its line end and any blank line after it, so they still join to the passage."""
    out: list[str] = []
    for part in parts:
        lines = part.splitlines(keepends=True)
        if not _tabular(lines) or count_tokens(part) < LINE_SPLIT_TOKENS:
            out.append(part)
            continue
        rows: list[str] = []
        for line in lines:  # a blank line stays with the row before it (the first: after)
            if rows and (not line.strip() or not rows[-1].strip()):
                rows[-1] += line
            else:
                rows.append(line)
        out.extend(rows)
    return out


def _tabular(lines: list[str]) -> bool:
    """Whether ``lines`` read as rows (three or more, hardly any continuing the line before in
    lower case, as a prose sentence wrapped over lines does: with a lower-case word, not a
    name set to a value, "q=0.10 z=5")."""
    rows = [line.strip() for line in lines if line.strip()]
    if len(rows) < 3:
        return False
    continued = sum(bool(_PROSE_GOES_ON.match(row)) for row in rows[1:])
    return continued <= TABLE_CONTINUED * (len(rows) - 1)
