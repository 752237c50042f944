"""Where in a document a passage is when it has no page: the heading of the section it starts in.

A PDF's passage is placed by its page; a Markdown, reStructuredText or text file has none, so a
footnote names the section instead: the last heading above the passage's first line in the
document's text (a Markdown ``#`` heading outside code blocks, or a title underlined with ``=``,
``-``, ``~`` ... as Markdown and reST write them). A text with no such heading above the passage
(a novel, an RFC's numbered lines) gets no section: nothing is made up in its place.
"""

from __future__ import annotations

import re

_ATX = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_UNDERLINE = re.compile(r"^([=\-~^\"'`*+#])\1{2,}[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_NOT_A_TITLE = re.compile(r"^\s|^[|>*+-]\s|^\d+[.)]\s")  # indented, a table, quote or list


def section_heading(text: str, start: int) -> str:
    """The heading of the section ``text[start:]`` starts in ("" when no heading is above it);
    a heading on the passage's first line counts as above it."""
    line_end = text.find("\n", start)
    lines = text[: len(text) if line_end < 0 else line_end].split("\n")
    heading, fenced = "", False
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            continue
        elif (match := _ATX.match(line)) is not None:
            heading = match.group(1).strip()
        elif _UNDERLINE.match(line) and number and _titled(lines[number - 1], line):
            heading = lines[number - 1].strip()
    return heading


def _titled(title: str, underline: str) -> bool:
    """Whether ``title`` is a heading's line above ``underline`` (not a paragraph's last line
    above a rule, nor an overline's own marks)."""
    words = title.strip()
    return (bool(words) and not _UNDERLINE.match(title) and not _NOT_A_TITLE.match(title)
            and len(underline.rstrip()) >= min(len(words), 3) and len(words) <= 120)


def passage_section(document_text: str | None, passage: str, start: int | None) -> str:
    """``section_heading`` of a passage found at ``start`` in ``document_text``; without the
    document (or one no longer holding the passage there), a heading in the passage's own
    first line, else ""."""
    if document_text is not None and start is not None \
            and document_text[start:start + len(passage)] == passage:
        return section_heading(document_text, start)
    return section_heading(passage, 0)
