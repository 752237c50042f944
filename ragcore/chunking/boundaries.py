"""Where a piece of text may be cut: paragraphs, sentences, clauses, words, tokens, characters.

Each level answers one question, ``cuts(text, start, end, index)``: the sorted positions strictly
inside (start, end) where the piece may be cut, so that the pieces partition it exactly (no
character is ever dropped, unlike LlamaIndex's regex ``findall``, which loses runs of
punctuation, or its punkt splitting, which loses text before the first sentence). The splitters
try their levels in order, coarsest first, and go finer only for pieces that are still too big.

Separators stay with the piece that follows them (" word", "\\n\\n\\nParagraph"), as in
LlamaIndex and as cl100k itself attaches a space to the next word; sentence breaks keep the
whitespace after a sentence with that sentence, so each sentence piece starts on its first word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from .token_index import TokenIndex

# LlamaIndex's secondary chunking regex: clauses ending in a comma, period, semicolon or CJK mark.
DEFAULT_SECONDARY_REGEX = "[^,.;。？！]+[,.;。？！]?"

# Words that end in a period without ending a sentence (a punkt-like list; "e.g" and "i.e" are
# matched with their inner period), and single capitals (initials: "J. R. R. Tolkien").
_ABBREVIATIONS = (
    "Mr Mrs Ms Dr Prof Sr Jr St Mt Ft vs etc al Inc Ltd Co Corp Vol Fig Figs Eq Ch Sec pp "
    "Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Gen Col Capt Lt Sgt Rev Hon Gov cf e.g i.e"
).split()


def _not_after_abbreviation() -> str:
    """Negative lookbehinds for "<abbreviation>." (fixed width, so one per length)."""
    by_length: dict[int, list[str]] = {1: ["[A-Z]"]}
    for word in _ABBREVIATIONS:
        by_length.setdefault(len(word), []).append(re.escape(word))
    return "".join(
        rf"(?<!\b(?:{'|'.join(words)})\.)" for _, words in sorted(by_length.items())
    )


# A sentence ends at . ! ? or … (plus closing quotes or brackets) followed by whitespace and not
# by a lowercase letter, unless the period closes an abbreviation or an initial; at a CJK full
# stop, question or exclamation mark; or at a blank line (headings, list items and code have no
# final period). The break is placed after the whitespace. The lookbehinds sit after the
# punctuation so they run only where a break is likely: the pattern then scans at ~80 MB/s.
_SENTENCE_BREAK = re.compile(
    r"[.!?…](?<![.!?…][.!?…])[.!?…]*[\"'”’)\]]*"
    + _not_after_abbreviation()
    + r"\s+(?![\sa-z])"
    + r"|[。！？](?<![。！？][。！？])[。！？]*[」』”’）)]*\s*"
    + r"|\n[^\S\n]*\n\s*"
)


class Level(Protocol):
    """One way of cutting text, from paragraphs down to single characters."""

    def cuts(self, text: str, start: int, end: int, index: TokenIndex) -> list[int]:
        """Sorted cut positions strictly inside (start, end)."""
        ...


@dataclass(frozen=True, slots=True)
class SeparatorLevel:
    """Cut before each occurrence of ``separator`` (non-overlapping, left to right)."""

    separator: str

    def cuts(self, text: str, start: int, end: int, index: TokenIndex) -> list[int]:
        parts = text[start:end].split(self.separator)
        if len(parts) == 1:
            return []
        # str.split finds the same occurrences as a left-to-right search; occurrence i starts
        # after parts 0..i and i earlier separators. numpy sums a word list ~10x faster.
        lengths = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts) - 1)
        found = start + np.cumsum(lengths) + np.arange(len(lengths)) * len(self.separator)
        return found[found > start].tolist()


@dataclass(frozen=True, slots=True)
class RegexLevel:
    """Cut after each match of ``pattern`` (a match is a piece; text between matches is kept)."""

    pattern: re.Pattern[str]

    def cuts(self, text: str, start: int, end: int, index: TokenIndex) -> list[int]:
        found = [m.end() for m in self.pattern.finditer(text, start, end)]
        return [c for c in dict.fromkeys(found) if start < c < end]


SENTENCES = RegexLevel(_SENTENCE_BREAK)


@dataclass(frozen=True, slots=True)
class TokenLevel:
    """Cut where a cl100k token begins: the finest cut that keeps every token whole."""

    def cuts(self, text: str, start: int, end: int, index: TokenIndex) -> list[int]:
        return index.token_starts(start, end)


@dataclass(frozen=True, slots=True)
class CharLevel:
    """Cut between any two characters (only reached when one token is too big on its own)."""

    def cuts(self, text: str, start: int, end: int, index: TokenIndex) -> list[int]:
        return list(range(start + 1, end))


def sentences(text: str) -> list[str]:
    """Split ``text`` into sentences by the splitter's sentence rule (to inspect or test it)."""
    if not text:
        return []
    cuts = [m.end() for m in _SENTENCE_BREAK.finditer(text) if 0 < m.end() < len(text)]
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]
