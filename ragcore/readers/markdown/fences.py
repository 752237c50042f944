"""Markdown code fences kept the right way round when a passage is cut out of a document.

A chunk, or the text shown around it, can start inside a fenced code block: "You guessed: 6\\n```
\\n\\nAt this point, the first part…" (the Rust book). Rendered as it is, the closing fence opens
a new code block and the prose after it shows as code, with its "## headings" as written. A
fence with an info string ("```rust") always opens a block (CommonMark never closes with one);
a bare fence is judged by the text on each side of it: prose after it and none before means the
fragment started inside a block, so an opening fence is put in front. A fragment that ends
inside a block needs nothing: CommonMark closes an open block at the end.
"""

from __future__ import annotations

import re
from typing import Pattern

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)")
_WORD = re.compile(r"\w+")
# A line of prose: at least this many words, and mostly letters and spaces.
PROSE_WORDS = 6
PROSE_SHARE = 0.85


def balance_fences(text: str, *, hidden: Pattern[str] | None = None) -> str:
    """``text`` with an opening fence in front when it starts inside a fenced code block.

    ``hidden`` matches characters to ignore when reading lines (the renderer's markers).
    """
    lines = text.split("\n")
    bare = [hidden.sub("", line) for line in lines] if hidden else lines
    fences = [(i, m) for i, m in enumerate(map(_FENCE.match, bare)) if m]
    if not fences or fences[0][1].group(2):
        return text
    first, marker = fences[0][0], fences[0][1].group(1)
    following = fences[1][0] if len(fences) > 1 else len(lines)
    if len(fences) > 1 and fences[1][1].group(2):
        return f"{marker}\n{text}"  # the next fence opens a block: the first one closed one
    if _prose(bare[first + 1:following]) and not _prose(bare[:first]):
        return f"{marker}\n{text}"
    return text


def outside_fence(text: str, position: int) -> int:
    """A place at or before ``position`` where ``text`` is not inside a fenced code block: the
    start of the block's opening fence line when ``position`` falls inside one, else the start
    of ``position``'s line."""
    line_start = text.rfind("\n", 0, position) + 1
    opening = None
    offset = 0
    for line in text[:line_start].split("\n")[:-1]:
        match = _FENCE.match(line)
        if match and opening is None:
            opening = (offset, match.group(1))
        elif match and opening and _closes(match, opening[1]):
            opening = None
        offset += len(line) + 1
    return opening[0] if opening else line_start


def _closes(match: re.Match[str], opener: str) -> bool:
    fence = match.group(1)
    return not match.group(2) and fence[0] == opener[0] and len(fence) >= len(opener)


def _prose(lines: list[str]) -> bool:
    return any(_is_prose(line) for line in lines)


def _is_prose(line: str) -> bool:
    stripped = line.strip()
    if stripped.startswith("#") and _WORD.search(stripped):
        return True
    if len(_WORD.findall(stripped)) < PROSE_WORDS:
        return False
    plain = sum(c.isalpha() or c.isspace() for c in stripped)
    return plain >= PROSE_SHARE * len(stripped)
