"""Markdown (.md, .markdown): the source text as written, and its first heading as ``title``.

Markdown is already readable plain text, so unlike the HTML reader nothing is rendered or
stripped: code blocks, lists and links stay as the author wrote them, which keeps code samples
intact for retrieval. The title (front-matter ``title:`` or else the first heading outside a code
block) goes into the metadata, where the embedder sees it with every chunk of the file.
"""

from __future__ import annotations

import re
from pathlib import Path

from ragcore.readers.decoding import read_text
from ragcore.readers.part import Part

_HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.+?)(?:\s+#+)?\s*$")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")
_FRONT_TITLE = re.compile(r"^title:\s*['\"]?(.+?)['\"]?\s*$", re.MULTILINE)


def read_markdown(path: Path) -> list[Part]:
    """One part: the Markdown source, with ``title`` metadata when the file has a title."""
    text = read_text(path)
    title = markdown_title(text)
    return [Part(text, {"title": title} if title else {})]


def markdown_title(text: str) -> str | None:
    """The front-matter title, else the first ATX heading that is not inside a fenced block."""
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        match = _FRONT_TITLE.search(text, 4, end) if end > 0 else None
        if match:
            return match.group(1)
    in_fence = False
    for line in text.split("\n"):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            match = _HEADING.match(line)
            if match:
                return match.group(1).strip()
    return None
