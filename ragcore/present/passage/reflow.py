"""PDF passages shown as paragraphs, not as the page's printed lines.

A PDF page's text keeps the printed line ends ("the TICs and perimeter firewalls are\\nless
useful for…"); shown in a wider or narrower box than the page, every sentence breaks at odd
places. A line end inside a paragraph is shown as a space; a blank line, a line end before a
list item ("•", "1.", "(a)", "–"), after a colon, or after a line shorter than a full printed line
(a paragraph's last line, a heading) stay, unless the next line starts in lower case. Each line end is swapped for one space, so the text keeps its length
and the segments (passage, cited spans) keep their places.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import PurePath
from typing import Sequence

from ..citations import Segment

_BULLET = re.compile(r"[ \t]*[•\u2013\u2014*\-]\s")
# "2) hosting" after "(see Section" goes on with the sentence: a numbered item starts a line only
# after a line that ends a sentence or a clause.
_NUMBERED = re.compile(r"[ \t]*(?:\d{1,3}[.)]|\([a-z0-9]{1,3}\)|[a-z][.)])\s")
# A line at least this share of a full printed line long goes on to the next line.
FULL_LINE = 0.75


def reflows(file_name: str | None) -> bool:
    """True for the files whose passages are shown reflowed (PDFs: their lines are print's)."""
    return PurePath(file_name or "").suffix.lower() == ".pdf"


def reflow_segments(segments: Sequence[Segment]) -> list[Segment]:
    """``segments`` with the line ends inside paragraphs made spaces (lengths unchanged)."""
    text = reflow("".join(s.text for s in segments))
    out, position = [], 0
    for segment in segments:
        out.append(replace(segment, text=text[position:position + len(segment.text)]))
        position += len(segment.text)
    return out


def reflow(text: str) -> str:
    """``text`` with each line end inside a paragraph replaced by a space (same length)."""
    lines = text.split("\n")
    width = _line_width(lines)
    joined = [lines[0]]
    for before, line in zip(lines, lines[1:]):
        joined.append((" " if _continues(before, line, width) else "\n") + line)
    return "".join(joined)


def _line_width(lines: list[str]) -> int:
    """The length of a full printed line: the 80th percentile of the lines' lengths."""
    lengths = sorted(len(line.rstrip()) for line in lines if line.strip())
    return lengths[int(0.8 * (len(lengths) - 1))] if lengths else 0


def _continues(before: str, line: str, width: int) -> bool:
    """True when ``line`` goes on with the paragraph ``before`` ends: ``before`` fills the
    printed line (a paragraph's last line is short) or ``line`` starts in lower case."""
    last = before.rstrip()
    if not last or not line.strip() or _BULLET.match(line) or last.endswith(":"):
        return False
    if _NUMBERED.match(line) and last[-1] in ".;!?":
        return False
    return len(last) >= FULL_LINE * width or line.lstrip()[:1].islower()
