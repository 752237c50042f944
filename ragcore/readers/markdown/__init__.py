"""Markdown (.md, .markdown): the source text as written, and its first heading as ``title``.

Markdown is already readable plain text, so unlike the HTML reader nothing is rendered or
stripped when a file is read: code blocks, lists and links stay as the author wrote them, which
keeps code samples intact for retrieval and a passage's offsets true to the file. The title
(front-matter ``title:`` or else the first heading outside a code block) goes into the metadata,
where the embedder sees it with every chunk of the file. A passage is read by a person or the
model without the file's HTML (``read_as``):

    readable.py  Markdown without its HTML and mdBook markup, code left as written
    fences.py    code fences kept the right way round when a passage is cut out of a file
"""

from __future__ import annotations

import re
from pathlib import Path, PurePath

from ragcore.readers.decoding import read_text
from ragcore.readers.markdown.fences import balance_fences
from ragcore.readers.markdown.readable import readable_markdown
from ragcore.readers.part import Part

MARKDOWN_SUFFIXES = (".md", ".markdown")

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


def read_as(text: str, file_name: str | None) -> str:
    """``text`` (a passage) of the file ``file_name`` as its reader should see it: a Markdown
    file's HTML and mdBook markup turned into their text (``readable_markdown``: '<span
    class="filename">Filename: src/main.rs</span>' reads "Filename: src/main.rs"), its code as
    written, in a passage cut from inside a code block too; another file's text as it is."""
    if PurePath(file_name or "").suffix.lower() not in MARKDOWN_SUFFIXES:
        return text
    balanced = balance_fences(text)  # an opening fence in front when cut inside a block
    opener = balanced[:len(balanced) - len(text)]
    return readable_markdown(balanced).removeprefix(opener)  # code, so kept as written
