"""Header fields a document declares about itself: "Title:", "Author:", "Created:" lines.

PEPs open with RFC 822 style headers (``Author:`` continued on indented lines), Project
Gutenberg texts with "Title:" and "Author:" lines, reST documents with docinfo fields
(``:Author: ...``), Markdown with YAML front matter (``author:`` or a ``- name`` list). Only
the head of a document is read (``HEAD_LINES``) and only the field names below count, so a
"Date:" quoted deep in the text is never taken for the document's own. An ebook's "Release
date:" is not one either: it dates the edition (2021 for The Great Gatsby), not the book.
"""

from __future__ import annotations

import re

HEAD_LINES = 60
_FIELD = re.compile(r"^:?([A-Za-z][A-Za-z \-]{0,24}?)\s*:(?:\s+(.*)|\s*$)")
_NAMES = {
    "title": "title",
    "author": "authors", "authors": "authors", "written by": "authors", "by": "authors",
    "editor": "authors", "editors": "authors",
    "date": "date", "created": "date", "published": "date", "publication date": "date",
    "first published": "date", "date published": "date",
    "abstract": "abstract", "description": "abstract", "summary": "abstract",
    "pep": "pep", "rfc": "rfc",
}


def header_fields(text: str) -> dict[str, str]:
    """The card fields among the header fields at the head of ``text``: title, authors (as
    written, not yet split), date, abstract, pep, rfc; the first of each."""
    found: dict[str, str] = {}
    current: str | None = None
    for line in text.split("\n")[:HEAD_LINES]:
        if current is not None and line[:1] in (" ", "\t") and line.strip():
            # A continuation line (PEP headers) or a YAML list item ("  - Jane Doe").
            item = line.strip()
            joiner = "; " if item.startswith("- ") else " "
            value = item.removeprefix("- ").strip()
            found[current] = f"{found[current]}{joiner}{value}" if found[current] else value
            continue
        current = None
        match = _FIELD.match(line)
        if not match:
            continue
        name = _NAMES.get(" ".join(match.group(1).lower().split()))
        if name is not None and name not in found:
            found[name] = (match.group(2) or "").strip()
            current = name
    return {name: value.strip(" ;") for name, value in found.items() if value.strip(" ;")}
