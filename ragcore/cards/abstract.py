"""The abstract under a document's "Abstract" heading, and a reST or Markdown heading as title.

The abstract is the prose after a line that says "Abstract" (alone, underlined in reST, or
"Abstract: text" on one line), up to the next heading, a page footer or ``MAX_CHARS``. PDF text
has no blank lines between paragraphs, so a heading ends it there ("Keywords" under a NIST
abstract); plain text (RFCs, PEPs) ends it at a paragraph that is not indented like the first.
"""

from __future__ import annotations

import re

MAX_CHARS = 1500
_ABSTRACT = re.compile(r"^\s*(?:\d+\.?\s+)?abstract\s*(?:[:.\u2014\u2013-]\s*(.*))?$",
                       re.IGNORECASE)
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+])\1{2,}\s*$")
_ATX = re.compile(r"^ {0,3}#{1,6}\s+(.+?)(?:\s+#+)?\s*$")
# A line ending in one of these runs on: it is inside a paragraph, not a heading.
_JOINING = frozenset("a an and as at by for from in into of on or the to with".split())
_COLUMN_GAP = re.compile(r"\S\s{5,}\S")  # a page footer's columns: "Fielding, et al.   [Page 1]"
# A paper's first section, its heading run into the lines around it by a two-column PDF's text
# ("... clusters every day. 1 Introduction", "1 Introduction Over the past five years, ..."):
# the abstract ends before it.
_FIRST_SECTION = re.compile(r"(?:^|(?<=[.!?]))\s*1\.?\s+Introduction\b")


def abstract_of(lines: list[str]) -> str:
    """The abstract's text, its lines joined, or "" when no "Abstract" heading is found."""
    for index, line in enumerate(lines):
        match = _ABSTRACT.match(line)
        if match:
            found = _paragraphs(lines[index + 1:], first=(match.group(1) or "").strip())
            if found:
                return found
    return ""


def _paragraphs(lines: list[str], *, first: str) -> str:
    parts = [first] if first else []
    indent: int | None = None
    blank = False
    for line in lines:
        if _UNDERLINE.match(line) and not parts:
            continue
        if not line.strip():
            blank = bool(parts)
            continue
        section = _FIRST_SECTION.search(line)
        if section:
            parts.append(line[:section.start()].strip())
            break
        margin = len(line) - len(line.lstrip())
        if _ends_abstract(line) or (blank and indent is not None and margin != indent):
            break
        if indent is None:
            indent = margin
        parts.append(line.strip())
        blank = False
        if sum(map(len, parts)) >= MAX_CHARS:
            break
    text = " ".join(" ".join(parts).split())
    return text[:MAX_CHARS]


def _ends_abstract(line: str) -> bool:
    """A heading ("Keywords", "1. Introduction"), a reST underline or a page footer."""
    text = line.strip()
    if _UNDERLINE.match(line) or _COLUMN_GAP.search(text):
        return True
    words = text.split()
    return (len(words) <= 6 and (text[0].isupper() or text[0].isdigit())
            and not text.endswith((".", ",", ";", ":", "-"))
            and words[-1].lower() not in _JOINING)


def heading_title(lines: list[str]) -> str:
    """The first heading of reST ("Title" over "=====") or Markdown ("# Title") near the top."""
    for index, line in enumerate(lines[:30]):
        text = line.strip()
        if not text or _UNDERLINE.match(line):
            continue
        if len(text.split()) >= 6 and text.endswith("."):
            return ""  # prose came first: the text opens without a heading
        atx = _ATX.match(line)
        if atx:
            return atx.group(1).strip()
        below = lines[index + 1] if index + 1 < len(lines) else ""
        if _UNDERLINE.match(below) and len(below.strip()) >= len(text):
            return text
    return ""
