"""Where an answer quotes a passage word for word: the character spans of the quoted text.

Words are compared case-insensitively and everything between words (spaces, line breaks,
punctuation, Markdown) is ignored, so a sentence wrapped over three lines of an RFC is still
found in an answer that quotes it on one line. Text is quoted when a whole sentence of the
passage appears in the answer (a chunk that starts or ends inside a quoted sentence holds a
piece of it, which counts as a sentence here), or a whole sentence of the answer appears in the
passage (quotes cut short, or split differently from this splitter). An answer that quotes only
whole sentences (the extractive answerer's, ``whole``) must hold the passage's sentence from
where one of its sentences starts to where one ends: a heading "The Framework Core" is not
quoted by "The Framework Core has five Functions.". A list item too short to count as a quote on
its own ("Identify", "Protect") counts when the answer quotes it as a list line ("  - Identify")
and the passage holds another quote of the answer (the list's lead-in or a longer item). Sharing
words is never enough: a sentence that resembles the answer but was not quoted is not marked.
``answer_spans`` finds the short answer of an extractive answer inside the quoted spans, to
emphasise it there. For generated answers, ``support.py`` decides which sentences merely support
the answer.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Sequence

from ..readers.markdown.readable import HTML_MARKUP
from ..search.lexical import split_sentences

Span = tuple[int, int]

# A "quote" shorter than this ("See below.") appears in many passages by chance.
MIN_QUOTE_WORDS = 3

_WORD = re.compile(r"\w+")
# Blocks: paragraphs (a blank line), and each list item or Markdown heading on its own line.
_BLOCK_BREAK = re.compile(r"\n[ \t]*\n|\n(?=[ \t]*(?:[-*\u2022]|\d+[.)]|#+)\s)")
# A sentence ends at . ! ? (and closing quotes/brackets) before whitespace and a capital or digit;
# a single line break inside a paragraph is only whitespace.
_SENTENCE_END = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9])")
# A list item on its own line: its bullet or number, then its text (group 1).
_ITEM_LINE = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+(\S.*?)[ \t]*$", re.MULTILINE)
# A list item as an extractive answer quotes it: indented under its lead-in, "  - item".
_QUOTED_ITEM = re.compile(r"^[ \t]+- (.+)$", re.MULTILINE)
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


def quoted_spans(passage: str, answer: str, *, whole: bool = False) -> list[Span]:
    """Spans of ``passage`` that ``answer`` quotes word for word, merged and in order
    (``whole``: the answer quotes whole sentences only, see the module docstring)."""
    words, places = _tokens(passage)
    answer_words, starts, ends = _sentence_bounds(answer)
    sentences = sentence_spans(passage)
    found: list[Span] = []
    for number, (start, end) in enumerate(sentences):
        first, last = bisect_left(places, (start, 0)), bisect_left(places, (end, 0))
        sentence = words[first:last]
        if len(sentence) >= MIN_QUOTE_WORDS and any(
            not whole or ((number == 0 or i in starts) and (number == len(sentences) - 1
                                                            or j in ends))
            for i, j in _occurrences(answer_words, sentence)
        ):
            found.append((places[first][0], places[last - 1][1]))
    for quote in answer_sentences(answer):
        for first, last in _occurrences(words, quote):
            found.append((places[first][0], places[last - 1][1]))
    if found:
        found += _short_items(passage, answer)
    return merge_spans([_widen(passage, start, end) for start, end in found])


def _sentence_bounds(text: str) -> tuple[list[str], set[int], set[int]]:
    """The words of ``text``, the word positions where its sentences start, and where they end
    (the position after their last word)."""
    words, places = _tokens(text)
    bounds = [(bisect_left(places, (a, 0)), bisect_left(places, (b, 0)))
              for a, b in sentence_spans(text)]
    return words, {a for a, _ in bounds}, {b for _, b in bounds}


def _short_items(passage: str, answer: str) -> list[Span]:
    """Spans of the passage's list items too short to be quotes alone that ``answer`` quotes
    as list lines of its own (the caller has found another quote in the passage)."""
    items = {tuple(words_of(m[1])) for m in _QUOTED_ITEM.finditer(answer)}
    items = {item for item in items if 0 < len(item) < MIN_QUOTE_WORDS}
    return [m.span(1) for m in _ITEM_LINE.finditer(passage) if tuple(words_of(m[1])) in items]


def answer_spans(passage: str, short_answer: str | None, quoted: Sequence[Span]) -> list[Span]:
    """Spans of ``passage`` holding ``short_answer`` word for word inside the ``quoted`` spans
    (where the answer quotes the sentence it took its short answer from)."""
    wanted = words_of(short_answer or "")
    if not wanted or not quoted:
        return []
    words, places = _tokens(passage)
    spans = [(places[first][0], places[last - 1][1]) for first, last in _occurrences(words, wanted)]
    return [(a, b) for a, b in spans if any(start <= a and b <= end for start, end in quoted)]


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
    """The words of ``text`` and their spans; none inside an HTML tag or comment (a Markdown
    passage's '<kbd>5</kbd>' is "5" to its reader and to the model, which reads it so)."""
    markup = iter(m.span() for m in HTML_MARKUP.finditer(text)) if "<" in text else iter(())
    skipped = next(markup, None)
    words, places = [], []
    for match in _WORD.finditer(text):
        while skipped is not None and skipped[1] <= match.start():
            skipped = next(markup, None)
        if skipped is None or match.start() < skipped[0]:
            words.append(match.group().lower())
            places.append(match.span())
    return words, places


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
