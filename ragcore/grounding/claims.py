"""An answer cut into the claims that get checked, each with its place in the answer.

A claim is a sentence, a line of a list, or, in an answer to a list question, one item of a
run like "A, B, C and D": an invented item must be caught on its own, not averaged away by the
three true ones. Passages are cut into sentences the same way, with character offsets, so the
sentences supporting a claim can be marked in the passage. Text that makes no claim ("Sure!",
"In short:") and the fixed refusal sentence are not claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import Facts, facts_of
from .text import content_stems

Span = tuple[int, int]

# A sentence's end, or the gap " … " the sentence reader joins the sentences it keeps with.
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'\u201d\u2019)\]*]*\s+(?=[\"'\u201c\u2018(\[*]*[A-Z0-9])|"
                           r"\s+\u2026\s+")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|cf|al|Dr|Mr|Mrs|Ms|Prof|Fig|No|Vol|pp|Sec|"
                           r"St|Jr|Sr|Inc|Ltd|Co)|\b[A-Z])\.$")
_BULLET = re.compile(r"^\s*(?:(?:[-*\u2022]\s+)?(?:\(?\d{1,2}[.)]|\(?[a-z][.)])|[-*\u2022])\s+")
_ITEM_SPLIT = re.compile(r"\s*(?:,|;)\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+")
_LEAD = re.compile(r"^.*?\b(?:are|were|include|includes|included|is|was|as follows|"
                   r"following)\s*:?\s+|^[^:]{0,80}:\s+", re.IGNORECASE)
# The model's attribution of a claim to its passages ("The passage states that ...",
# "According to the documents, ..."): the words claim nothing the passages could state.
_ATTRIBUTION = re.compile(
    r"^\W*(?:(?:the|this|that) (?:passages?|documents?|context|text|sources?)|it) "
    r"(?:states?|says?|mentions?|notes?|explains?|reads?|indicates?)(?: that)?\s*:?\s*|"
    r"^\W*(?:according to|as stated in|as (?:the|this) \w+ (?:states|says),?) "
    r"(?:the|this) (?:(?:provided|given) )?(?:passages?|documents?|context|text|sources?)"
    r"(?: (?:provided|given|above))?\s*,?\s*",
    re.IGNORECASE)
MIN_ITEMS = 3  # "A and B" is a pair; lists are split from three items on


@dataclass(frozen=True, slots=True)
class Claim:
    """One checkable statement: its text, its span in the answer, its content stems and facts."""

    text: str
    span: Span
    stems: tuple[str, ...]
    facts: Facts
    item: bool = False  # one item of a list


# A claim of this many content words or fewer ("**80 bytes**.", a list item) states nothing
# but its words: each one the window lacks counts as a missing fact.
SHORT_CLAIM_STEMS = 4


def short_answer(claim: Claim) -> bool:
    """Whether ``claim`` is a short answer ("**80 bytes**."): a few words, not a list item. One
    written word is one, however many stems its punctuation splits it into
    ("**1979-05-27T07:32:00**.", a URL, a version)."""
    if claim.item:
        return False
    return len(claim.stems) <= SHORT_CLAIM_STEMS or len(written_words(claim)) == 1


def written_words(claim: Claim) -> list[str]:
    """The claim's words as written, its bold marks and closing full stop left out."""
    return claim.text.replace("*", " ").strip().rstrip(".").split()


def sentence_spans(text: str, *, wrapped: bool = False) -> list[Span]:
    """The sentences and list lines of ``text`` as (start, end) spans, trimmed of whitespace.
    ``wrapped`` (a passage of a document, whose prose may be hard-wrapped: an RFC, Markdown
    source, a PDF page) joins a line with the next one where no sentence ends between them."""
    spans = []
    for first, last in (_wrapped_lines(text) if wrapped else _lines(text)):
        line = text[first:last]
        start = first
        for cut in _SENTENCE_END.finditer(line):
            before = line[: cut.start()]
            if _ABBREVIATION.search(before.rstrip("\"')]*\u201d\u2019")):
                continue
            if _BULLET.fullmatch(line[start - first: cut.end()]):
                continue  # "- 3. Secure ...": the item's number opens it, it ends nothing
            spans.append((start, first + cut.start()))
            start = first + cut.end()
        spans.append((start, last))
    return [_trim(text, a, b) for a, b in spans if text[a:b].strip()]


def _lines(text: str) -> list[Span]:
    return [line.span() for line in re.finditer(r"[^\n]+", text)]


# A line that ends a run of prose: a sentence's or a lead's end, or nothing but markup.
_LINE_ENDS = re.compile(r"[.!?:;][\"'\u201d\u2019)\]*]*\s*$|^\s*(?:[=\-~^#*`|+]{3,}.*|\|.*|#.*)$")
READER_GAP = re.compile(r"\s\u2026\s")  # the sentence reader's gap between kept sentences
# A line that starts something of its own: a list item, a heading, a table row, an underline.
_LINE_OPENS = re.compile(r"^\s*(?:[-*\u2022+]\s|\(?\d{1,2}[.)]\s|\(?[a-z][.)]\s|#|\||[=\-~^`]{3,})")


def _wrapped_lines(text: str) -> list[Span]:
    """The lines of ``text``, a line joined with the next when it ends no sentence (nor is a
    heading, a table row or an underline) and the next starts nothing of its own."""
    runs: list[Span] = []
    joins = False
    for start, end in _lines(text):
        line = text[start:end]
        if (joins and line.strip() and not _LINE_OPENS.match(line)
                and text.count("\n", runs[-1][1], start) == 1):  # a blank line ends a paragraph
            runs[-1] = (runs[-1][0], end)
        else:
            runs.append((start, end))
        # After a gap (" … ", the sentence reader's) the line is that sentence's, not the
        # heading or underline it was joined to ("----------- … Surround ... with two blank").
        joins = bool(line.strip()) and not _LINE_ENDS.search(READER_GAP.split(line)[-1])
    return runs


def claims_of(answer: str, *, split_items: bool = False, min_terms: int = 1) -> list[Claim]:
    """The claims of ``answer``: its sentences and lines; with ``split_items`` (a list
    question) a sentence listing three or more items gives one claim per item."""
    claims = []
    for start, end in sentence_spans(answer):
        sentence = answer[start:end]
        items = _items(sentence) if split_items else []
        if items:
            claims += [_claim(answer, start + a, start + b, item=True) for a, b in items]
            continue
        # In an answer to a list question, a bulleted line is one item of the list.
        claims.append(_claim(answer, start, end,
                             item=split_items and bool(_BULLET.match(sentence))))
    return [c for c in claims if len(c.stems) >= min_terms or c.facts]


def _claim(answer: str, start: int, end: int, *, item: bool = False) -> Claim:
    text = answer[start:end]
    body = _ATTRIBUTION.sub("", _BULLET.sub("", text))
    return Claim(text, (start, end), tuple(content_stems(body)), facts_of(body), item)


def _items(sentence: str) -> list[Span]:
    """The spans of the items a sentence lists after its lead ("The groups are A, B, C and D"),
    when there are at least ``MIN_ITEMS`` short ones; [] otherwise."""
    body = _BULLET.sub("", sentence)
    offset = len(sentence) - len(body)
    lead = _LEAD.match(body)
    start = offset + (lead.end() if lead else 0)
    rest = sentence[start:].rstrip(" .;")
    pieces, position = [], start
    for match in _ITEM_SPLIT.finditer(rest):
        pieces.append((position, start + match.start()))
        position = start + match.end()
    pieces.append((position, start + len(rest)))
    pieces = [(a, b) for a, b in pieces if sentence[a:b].strip()]
    if len(pieces) < MIN_ITEMS or any(len(sentence[a:b].split()) > 12 for a, b in pieces):
        return []
    return pieces


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
