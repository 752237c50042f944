"""Where an answer quotes a passage word for word: the character spans of the quoted text.

Words are compared case-insensitively and everything between words (spaces, line breaks,
punctuation, Markdown) is ignored, so a sentence wrapped over three lines of an RFC is still
found in an answer that quotes it on one line. Text is quoted when a whole sentence of the
passage appears in the answer (a chunk that starts or ends inside a quoted sentence holds a
piece of it, which counts as a sentence here), or a whole sentence of the answer appears in
the passage (quotes cut short, or split differently from this splitter). Sharing words is never
enough: a sentence that resembles the answer but was not quoted is not marked. For generated
answers, ``support.py`` decides which sentences merely support the answer.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Sequence

from ..lexical import split_sentences

Span = tuple[int, int]

# A "quote" shorter than this ("See below.") appears in many passages by chance.
MIN_QUOTE_WORDS = 3

_WORD = re.compile(r"\w+")
# Blocks: paragraphs (a blank line), and each list item or Markdown heading on its own line.
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*\u2022]|\d+[.)]|#+)\s)")
# A sentence ends at . ! ? (and closing quotes/brackets) before whitespace and a capital or digit;
# a single line break inside a paragraph is only whitespace.
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9])")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|al|Dr|Mr|Mrs|Ms|Prof|Fig|No|Vol|pp|Sec|approx)|\b[A-Z])\.$"
)
# Punctuation that belongs to a quoted sentence when it touches its first or last word.
_OPENING = set("([{\"'\u201c\u2018*_`#")
_CLOSING = set(".!?:;,)]}\"'\u201d\u2019*_`")


def sentence_spans(text: str) -> list[Span]:
    """Character spans of the sentences of ``text``, whitespace trimmed, in order.

    Paragraphs and list items are split first; a line break inside a paragraph does not end a
    sentence (documents wrap lines), an abbreviation such as "e.g." does not either.
    """
    spans: list[Span] = []
    block_start = 0
    for end in [m.start() for m in _BLOCK_BREAK.finditer(text)] + [len(text)]:
        start = block_start
        for match in _SENTENCE_END.finditer(text, block_start, end):
            if not _ABBREVIATION.search(text[start : match.end()]):
                _add_trimmed(spans, text, start, match.end())
                start = match.end()
        _add_trimmed(spans, text, start, end)
        block_start = end
    return spans


def quoted_spans(passage: str, answer: str) -> list[Span]:
    """Spans of ``passage`` that ``answer`` quotes word for word, merged and in order."""
    words, places = _tokens(passage)
    answer_words = _joined(_tokens(answer)[0])
    found: list[Span] = []
    for start, end in sentence_spans(passage):
        first, last = bisect_left(places, (start, 0)), bisect_left(places, (end, 0))
        sentence = words[first:last]
        if len(sentence) >= MIN_QUOTE_WORDS and _joined(sentence) in answer_words:
            found.append((places[first][0], places[last - 1][1]))
    for quote in answer_sentences(answer):
        for first, last in _occurrences(words, quote):
            found.append((places[first][0], places[last - 1][1]))
    return merge_spans([_widen(passage, start, end) for start, end in found])


def answer_sentences(answer: str) -> list[list[str]]:
    """The sentences of ``answer`` long enough to count as quotes, as lower-case words."""
    sentences = (_tokens(s)[0] for s in split_sentences(answer))
    return [s for s in sentences if len(s) >= MIN_QUOTE_WORDS]


def quotes_in(text: str, quote: Sequence[str]) -> bool:
    """True when the words of ``quote`` appear, in order and adjacent, in ``text``."""
    return _joined(quote) in _joined(_tokens(text)[0])


def merge_spans(spans: list[Span]) -> list[Span]:
    """Overlapping or touching spans joined, in order."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _occurrences(words: list[str], quote: list[str]) -> list[Span]:
    """Word ranges of ``words`` holding ``quote``."""
    size = len(quote)
    return [
        (i, i + size)
        for i in range(len(words) - size + 1)
        if words[i] == quote[0] and words[i : i + size] == quote
    ]


def words_of(text: str) -> list[str]:
    """The lower-case words of ``text``, as quotes are compared."""
    return _tokens(text)[0]


def _tokens(text: str) -> tuple[list[str], list[Span]]:
    matches = list(_WORD.finditer(text))
    return [m.group().lower() for m in matches], [m.span() for m in matches]


def _joined(words: Sequence[str]) -> str:
    # Spaces around every word, so "art" is never found inside "start".
    return " " + " ".join(words) + " "


def _widen(text: str, start: int, end: int) -> Span:
    while start > 0 and text[start - 1] in _OPENING:
        start -= 1
    while end < len(text) and text[end] in _CLOSING:
        end += 1
    return start, end


def _add_trimmed(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if stripped:
        lead = len(piece) - len(piece.lstrip())
        spans.append((start + lead, start + lead + len(stripped)))
