"""A first page read as a title page: its title lines, the names under them, its kind.

Title pages follow one shape: maybe some boilerplate (a URL, "Version 1.0", a letter-spaced
banner), the title over one to six lines, then the authors, one a line, maybe with
affiliations between them, then a date or more boilerplate. ``title_block`` reads that shape;
a first line that is prose (a sentence) means the text has no title page, and nothing is taken.
RFCs have their own header, two columns of authors, organizations and a date, then the title
centred below (``rfc_header``). Each finder returns only what it recognized.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .dates import date_line
from .names import clean_name, is_person_name, split_names

_FUNCTION_WORDS = frozenset(
    "a an and as at by for from in into of on or the to with via vs versus".split()
)
_WORDS = re.compile(r"[A-Za-z][\w'\u2019-]*")
_BOILERPLATE = re.compile(
    r"https?://|www\.|doi\.org|\S@\S|available free of charge|^\s*(?:\S\s){3,}\S\s*$"
    r"|^\s*(?:version|revision|release|draft|edition)\s+[\d.]+\s*$|^\s*(?:page\s+)?[ivxlc\d]+\s*$",
    re.IGNORECASE,
)
_ADDRESS = re.compile(r"\b[A-Z]{2}\s+\d{5}(?:-\d{4})?\b|,\s*[A-Z]{2}$")  # "Clifton, VA"
_AFFILIATION = re.compile(
    r"\b(?:Division|Laboratory|Institute|Department|University|College|Agency|Office|Inc\.?"
    r"|Corporation|Ministry|Bureau|Center|Centre|School|Secretary|Director|Commerce)\b"
)
_KIND = re.compile(
    r"^\s*((?:NIST\s+)?(?:Special\s+Publication|SP|Interagency\s+Report|IR|FIPS(?:\s+PUB)?)"
    r"\s+\d+(?:-\d+)?[A-Za-z]?(?:\s+Rev(?:ision|\.)\s*\d+)?)\s*$"
)
_BY_LINE = re.compile(r"^\s*by\s+(.+?)\s*$", re.IGNORECASE)
_RFC = re.compile(r"^Request for Comments:\s*(\d+)", re.IGNORECASE)
_COLUMNS = re.compile(r"^(\S.*?)\s{3,}(\S.*?)\s*$")
_RFC_NAME = re.compile(r"^(?:[A-Z]\.\s?)+(?:[A-Z][\w'-]+\s)?[A-Z][\w'-]+$")  # R. Fielding
MAX_TITLE_LINES = 6
SEARCH_LINES = 15


@dataclass(slots=True)
class TitleBlock:
    """What a title page gave: its title (lines joined), the names under it, its kind."""

    title: str = ""
    authors: tuple[str, ...] = ()
    kind: str = ""


def title_block(lines: list[str]) -> TitleBlock:
    """The title, authors and kind of a first page. A blank line ends the title and its
    names (a plain text's title stands in its own paragraph; a PDF page has no blank lines,
    and the pages of a file are joined with one)."""
    block = TitleBlock(kind=kind_line(lines))
    run: list[str] = []
    for line in lines[:SEARCH_LINES + MAX_TITLE_LINES * 2]:
        text = line.strip()
        skip = (not text or _KIND.match(text) or _BOILERPLATE.search(text)
                or _ADDRESS.search(text) or date_line(text))
        if run:  # the title goes on while its lines do
            # A line in capitals under a title that is not ("JOINT TASK FORCE") starts
            # another block.
            if (skip or not _title_like(text) or len(run) == MAX_TITLE_LINES * 2
                    or len(text.split()) > 1 and _capitals(text) != _capitals(run[0])):
                break
            run.append(text)
        elif _is_prose(text):
            return block  # the text begins with its prose: it has no title page
        elif not (skip or _AFFILIATION.search(text)) and _title_like(text):
            run.append(text)
    title_lines, names = _split_names_off(run)
    block.title = " ".join(title_lines)
    block.authors = names
    return block


def kind_line(lines: list[str]) -> str:
    """The series and number a title page prints ("NIST Special Publication 800-218")."""
    for line in lines[:SEARCH_LINES * 3]:
        match = _KIND.match(line)
        if match:
            return " ".join(match.group(1).split())
    return ""


def _split_names_off(run: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """The title lines of ``run`` (those before the first line of names, at least one), and the
    names after them (affiliation lines between names skipped)."""
    for index, line in enumerate(run[1:], start=1):
        last = run[index - 1].split()[-1].lower()
        if last in _FUNCTION_WORDS or last.endswith("ing"):
            continue  # "Guide for Conducting" / "Risk Assessments": the title goes on
        if _names_of(line):
            names = [name for n in run[index:] for name in _names_of(n)]
            return run[:index][:MAX_TITLE_LINES], tuple(dict.fromkeys(names))
    return run[:MAX_TITLE_LINES], ()


def _names_of(line: str) -> tuple[str, ...]:
    """The names a title page's line holds: one ("Donna Dodson*") or a list of them ("Jeffrey
    Dean and Sanjay Ghemawat", which was read as the title's last line); () for none."""
    if is_person_name(clean_name(line)):
        return (clean_name(line),)
    names = split_names(line)
    return names if len(names) > 1 and all(map(is_person_name, names)) else ()


def _title_like(text: str) -> bool:
    """A title line: short, not a sentence, its words capitalized (or all in capitals)."""
    if len(text) > 100 or text.endswith((".", ",", ";")) or len(text.split()) > 12:
        return False
    content = [w for w in _WORDS.findall(text) if w.lower() not in _FUNCTION_WORDS]
    if not content:
        return False
    return sum(w[0].isupper() for w in content) / len(content) >= 0.6


def _capitals(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return len(letters) > 1 and all(c.isupper() for c in letters)


def _is_prose(text: str) -> bool:
    return len(text.split()) >= 6 and text.endswith((".", "!", "?", '"', "\u201d"))


def by_line(lines: list[str]) -> tuple[str, ...]:
    """The names of a "by ..." line near the top ("by Jane Austen"), when they are names."""
    for line in lines[:SEARCH_LINES + MAX_TITLE_LINES]:
        match = _BY_LINE.match(line)
        if match:
            names = split_names(match.group(1))
            if names and all(is_person_name(n) for n in names):
                return names
    return ()


def rfc_header(lines: list[str]) -> TitleBlock:
    """Kind ("RFC 2616"), authors and title of an RFC's header; empty for any other text."""
    head = lines[:40]
    number = next((m.group(1) for m in map(_RFC.match, head) if m), None)
    if number is None:
        return TitleBlock()
    authors, end = [], 0
    for index, line in enumerate(head):
        if not line.strip():
            if authors:
                end = index
                break
            continue
        right = _COLUMNS.match(line)
        column = (right.group(2) if right else line).strip()
        if _RFC_NAME.match(column):
            authors.append(column)
    title = next((line.strip() for line in head[end:] if line.strip()), "")
    return TitleBlock(title=title if _title_like(title) or title.isupper() else "",
                      authors=tuple(authors), kind=f"RFC {number}")
