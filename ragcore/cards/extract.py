"""``card_of``: a document's card from its metadata and the head of its text.

Each field is taken from the most explicit source that has it, in this order:

    title     a "Title:" header field; the metadata's title (a PDF's /Title, an HTML <title>,
              a Markdown heading) unless it is a file name or a word processor's placeholder;
              an RFC's title line; a reST or Markdown heading; a title page's title lines
    authors   an "Author:" field; the metadata's author when it names people; an RFC
              header's names; a "by ..." line; the names under a title page's title; the
              metadata's author when it names an organization ("National Institute of ...")
    date      a "Created:"/"Date:" field; a line of the first pages that is only a date
              ("February 2022"); the PDF's creation date
    kind      "PEP 8" from its header, "RFC 2616", a printed series ("NIST Special
              Publication 800-218")
    relations an RFC's or a PEP's header fields naming other documents of its series
              ("Obsoletes: 2068") or its status (``relations``)
    abstract  an "Abstract:" field; the text under an "Abstract" heading; a PDF's /Subject when
              it is prose (NIST's PDFs keep their abstract there)

A field no source gives stays empty: a speech that opens with its first sentence gets an empty
card, never a title made from that sentence.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any, Mapping

from .abstract import abstract_of, heading_title
from .card import DocumentCard
from .dates import field_date, first_date_line
from .fields import header_fields
from .front_page import TitleBlock, by_line, rfc_header, title_block
from .relations import relations_of
from .names import is_organization, is_person_name, split_names

HEAD_CHARS = 8000  # the abstract of a NIST publication starts about 5000 characters in
DATE_CHARS = 2000  # a date line counts on the title pages only
MAX_AUTHORS = 30
_PLACEHOLDERS = frozenset(("untitled", "title", "document", "none", "unknown", "presentation"))
_PRODUCER_PREFIX = re.compile(r"^Microsoft (?:Word|PowerPoint|Excel) - ", re.IGNORECASE)
_FILE_NAME = re.compile(r"\.(?:docx?|pdf|tex|dvi|ps|rtf|txt|odt|indd|qxd|pptx?|xlsx?)$",
                        re.IGNORECASE)
_MIN_SUBJECT_WORDS = 12


def card_of(text: str, metadata: Mapping[str, Any] | None = None) -> DocumentCard:
    """The card of a document: its ``metadata`` (the reader's title, author, subject and
    created keys) and the head of its ``text`` (its first pages)."""
    metadata = metadata or {}
    head = text[:HEAD_CHARS]
    lines = head.split("\n")
    fields = header_fields(head)
    rfc = rfc_header(lines)
    page = title_block(lines) if not rfc.kind else TitleBlock()
    kind = _kind(fields, rfc, page)
    return DocumentCard(
        title=_title(fields, metadata, rfc, page, lines),
        authors=_authors(fields, metadata, rfc, page, lines),
        date=_date(fields, metadata, head),
        abstract=_abstract(fields, metadata, lines),
        kind=kind,
        relations=relations_of(lines, kind.split(" ")[0] if kind[:4] in ("RFC ", "PEP ") else ""),
    )


def _title(fields: dict[str, str], metadata: Mapping[str, Any], rfc: TitleBlock,
           page: TitleBlock, lines: list[str]) -> str:
    declared = _plain(metadata.get("title"))
    candidates = (
        fields.get("title", ""),
        declared if _plausible_title(declared, metadata) else "",
        rfc.title,
        heading_title(lines),
        page.title,
    )
    return next((" ".join(c.split()) for c in candidates if c.strip()), "")


def _plausible_title(title: str, metadata: Mapping[str, Any]) -> bool:
    """Not a file name, a path or a placeholder a word processor put in a PDF's /Title."""
    bare = _PRODUCER_PREFIX.sub("", title).strip()
    if len(bare) < 3 or not any(c.isalpha() for c in bare) or len(bare.split()) > 40:
        return False
    if bare.lower() in _PLACEHOLDERS or _FILE_NAME.search(bare) or "\\" in bare:
        return False
    stem = PurePath(str(metadata.get("file_name", ""))).stem
    return not (bare.startswith("/") or (stem and bare == stem))


def _authors(fields: dict[str, str], metadata: Mapping[str, Any], rfc: TitleBlock,
             page: TitleBlock, lines: list[str]) -> tuple[str, ...]:
    raw = _plain(metadata.get("author"))
    declared = split_names(raw)
    people = declared if declared and all(map(is_person_name, declared)) else ()
    # "National Institute of Standards and Technology" is one author, not two.
    organization = tuple(" ".join(part.split()) for part in raw.split(";") if part.strip()) \
        if is_organization(raw) else ()
    for names in (split_names(fields.get("authors", "")), people, rfc.authors, by_line(lines),
                  page.authors, organization):
        if names:
            return tuple(names[:MAX_AUTHORS])
    return ()


def _date(fields: dict[str, str], metadata: Mapping[str, Any], head: str) -> str:
    return (field_date(fields.get("date", ""))
            or first_date_line(head[:DATE_CHARS].split("\n"))
            or _plain(metadata.get("created")))


def _abstract(fields: dict[str, str], metadata: Mapping[str, Any], lines: list[str]) -> str:
    subject = " ".join(_plain(metadata.get("subject")).split())
    return (fields.get("abstract", "") or abstract_of(lines)
            or (subject if len(subject.split()) >= _MIN_SUBJECT_WORDS else ""))


def _kind(fields: dict[str, str], rfc: TitleBlock, page: TitleBlock) -> str:
    if fields.get("pep", "").strip().isdigit():
        return f"PEP {int(fields['pep'])}"
    return rfc.kind or page.kind


def _plain(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
