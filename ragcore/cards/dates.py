"""Dates a document gives for itself: a date line on its first pages, a header field, a PDF date.

Kept as printed ("February 2022", "05-Jul-2001", "January 16, 2020"): the card repeats the
document, it does not reformat it. Only a line that is a date and nothing else counts (a title
page's "February 2022", an RFC header's right column "June 1999"), never a date inside a
sentence, which is about something the text tells, not about the text.
"""

from __future__ import annotations

import re

_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December")
_SHORT = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
_DATE = (
    rf"(?:(?:{_MONTHS})\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?\d{{4}}"  # June 1999, May 5, 2020
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:{_MONTHS})\s+\d{{4}}"  # 5 May 2020
    rf"|\d{{1,2}}[-\s](?:{_SHORT})[-\s]\d{{4}}"  # 05-Jul-2001
    rf"|(?:{_SHORT})\.?\s+(?:\d{{1,2}},?\s+)?\d{{4}}"  # Jul 2001, Jul. 5, 2001
    r"|\d{4}-\d{2}-\d{2})"  # 2001-07-05
)
DATE = re.compile(_DATE, re.IGNORECASE)
_DATE_LINE = re.compile(rf"^\s*(?:\(\s*)?({_DATE})(?:\s*\))?\s*$", re.IGNORECASE)
# Columns of a header line: an RFC's right column ends in its date ("...      June 1999").
_COLUMN_GAP = re.compile(r"\s{3,}")
# PDF dates: D:YYYYMMDDHHmmSS with optional parts and a time zone.
_PDF_DATE = re.compile(r"^(?:D:)?(\d{4})(\d{2})?(\d{2})?")


def date_line(line: str) -> str:
    """The date ``line`` consists of (or ends with, after a wide gap), else ""."""
    match = _DATE_LINE.match(line)
    if match is None and _COLUMN_GAP.search(line.strip()):
        match = _DATE_LINE.match(_COLUMN_GAP.split(line.strip())[-1])
    return " ".join(match.group(1).split()) if match else ""


def first_date_line(lines: list[str]) -> str:
    """The first of ``lines`` that is a date, as printed; "" when none is."""
    for line in lines:
        found = date_line(line)
        if found:
            return found
    return ""


def field_date(value: str) -> str:
    """The date in a header field's value ("05-Jul-2001", "2001-07-05 (draft)"), else ""."""
    match = DATE.search(value)
    return " ".join(match.group().split()) if match else ""


def pdf_date(value: str) -> str:
    """A PDF date ("D:20220131143004-05'00'") as an ISO date ("2022-01-31"), else ""."""
    match = _PDF_DATE.match(value.strip())
    if not match:
        return ""
    year, month, day = match.groups()
    if not 1000 <= int(year) <= 2999:
        return ""
    return "-".join(part for part in (year, month, day) if part)
