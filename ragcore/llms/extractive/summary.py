"""Summaries a person would write from a document: central sentences of its body, by section.

Two summarisers quote documents without a language model: the extractive answerer asked "Summarise"
about the passages of a prompt (``overview_reply``, by words alone), and
``ragcore.summaries.summarize``, which summarises a whole file from its chunks with the embedding
model. Both read the text as ``text`` cuts it, and share what this module decides:

- which sentences may stand in a summary (``is_body``): whole prose sentences of the body; not
  list items without their lead-in, table rows (dense with codes and numbers: "ID.RA-2: ...
  COBIT 5 BAI08.01 ..."), references and footnotes, sentences leaning on the one before, nor
  anything under front or back matter (contents, authors, acknowledgements, references,
  glossary, acronyms, appendices);
- the document's main sections (``outline``): numbered titles group under their first number
  ("2.1 Framework Core" belongs to "2.0 Framework Basics"), and then text before the first
  number is front matter unless it is an abstract or executive summary; without numbers each
  heading starts a section, except a title repeated on many pages (a running header);
- what to quote (``pick``): the best sentence of each main section in document order (the
  abstract first in line, then the largest sections, when there are more sections than
  room), more than one per section only when there are few sections; for a text without
  sections, its most central sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from ...search.lexical import centrality_scores, named_files, terms, words
from .debris import is_debris as answer_debris
from .text import Candidate

MIN_WORDS = 6  # shorter sentences say too little to stand in a summary
MAX_WORDS = 60  # longer ones are run-on PDF debris (a table read as one sentence)
MANY_SECTIONS = 4  # with this many sections, a line each; with fewer, more lines per section
RUNNING_HEADER = 5  # a title over this many chunks (or 5 %) is a page header, not a section
_ENDED = re.compile(r"[.!?][\"'\u201d\u2019)\]]*$")
_CONTINUES = re.compile(
    r"^(?:and|but|so|or|yet|also|then|still|however|rather|thus|therefore|instead|moreover|"
    r"furthermore|in addition|similarly|otherwise|finally|nonetheless|nevertheless|"
    r"for (?:example|instance))\b", re.I)
# Stricter than the answerer's debris: footnotes ("3 Executive Order no. 13636, ...") and
# citations ("(2020)", "et al.") read badly in a summary even when they answer a question.
_CITES = re.compile(r"^\d{1,3}\s+\S|\(\d{4}[a-z]?\)|\bet al\.|\bISBN\b|\bpp\.\s*\d|\bvol\.\s*\d",
                    re.I)
# "This report explains ...": the text speaks of itself, it does not refer back.
_ITSELF = re.compile(r"^this (?:report|document|publication|paper|guide|chapter|book|article|"
                     r"specification|memo|standard|proposal|pep|rfc)\b", re.I)
_FIELD = re.compile(r"(?:^|\s)[A-Z][\w-]*:\s")  # "Title: ", "Author: " of a header block
_NUMBERED = re.compile(r"^(\d{1,2})(?:\.\d{1,2})*\.?\s+[A-Z]")
# A book's chapters: when it has them, only they are main sections (a song's first line or a
# letter's greeting set apart is not).
_CHAPTER = re.compile(
    r"^(?:chapter|part|book|act|stave|letter)\s+(?:[\dIVXLC]+|one|two|three|four|five|six|"
    r"seven|eight|nine|ten|eleven|twelve|first|second|third|fourth|fifth|sixth|last)\b", re.I)
# A line broken off a sentence, an attribution ("-- Tim Peters"), an address: no title.
_NO_TITLE = re.compile(r"[,;]$|^[(\[\"'\u201c\u2018\u2014-]|@")
_KEEP_BEFORE_NUMBERS = re.compile(r"^(?:abstract|executive summary|summary|overview)\b", re.I)
_MATTER = re.compile(
    r"^(?:\d{1,2}(?:\.\d{1,2})*\.?\s+)?(?:appendix|annex|references?\b|bibliography|glossary|"
    r"acronyms|abbreviations|acknowledge?ments?|index\b|(?:table of )?contents|list of|errata|"
    r"authority|disclaimer|trademark|note to (?:readers|reviewers)|audience|keywords|foreword|"
    r"preface|about the authors?|document conventions|patent|reports on computer systems|"
    r"copyright|license)", re.I)
FRONT = "front matter"  # the section key of what no summary quotes
BODY, PLAIN, OTHER = 2, 1, 0  # how well a sentence stands in a summary
NOTHING_TO_SUMMARISE = (
    "not found. The passages retrieved for this request hold no sentences to summarise (only "
    "titles, tables or references). Ask about a topic of the document, or summarise the whole "
    "file (the app's Summarise action reads all of it)."
)
SAME_TERMS = 0.5  # two picks sharing this share of their words say the same thing


@dataclass(frozen=True, slots=True)
class Sentence:
    """A sentence a summary may quote: its text, the chunk it came from, its main section."""

    text: str
    chunk: int
    section: int  # index into ``Outline.sections``
    level: int = BODY  # BODY, PLAIN (a short text's fallback) or OTHER (the last resort)

    @property
    def body(self) -> bool:
        return self.level == BODY


@dataclass(frozen=True, slots=True)
class Outline:
    """A document's quotable sentences, in order, each once, and its main sections' titles."""

    sentences: tuple[Sentence, ...]
    sections: tuple[str, ...]
    first: int | None = None  # the section an abstract or executive summary fills


def is_body(cand: Candidate) -> bool:
    """Whether a sentence reads alone as the body's prose (see the module docstring)."""
    text = cand.text
    count = len(words(text))
    leans = cand.starts_with_reference and not _ITSELF.match(text)
    if cand.item or leans or not MIN_WORDS <= count <= MAX_WORDS:
        return False
    if not _ENDED.search(text) or text[:1].islower() or text[:1] in "[(" or _CONTINUES.match(text):
        return False
    if '"""' in text or "'''" in text:  # a docstring in a code example
        return False
    if len(_FIELD.findall(text)) >= 2:
        return False
    return not is_debris(text)


def level_of(cand: Candidate) -> int:
    """BODY (``is_body``); PLAIN: a whole sentence that does not lean on the one before and
    is no title ("Cats hunt mice." in a short note, not "Trustworthy Secure Systems."); else
    OTHER."""
    if is_body(cand):
        return BODY
    text = cand.text
    tokens = words(text)
    titled = sum(w[:1].isupper() for w in tokens) > 0.6 * len(tokens)
    if (_ENDED.search(text) and len(tokens) >= 3 and not titled and not cand.starts_with_reference
            and not _CONTINUES.match(text)):
        return PLAIN
    return OTHER


def is_debris(text: str) -> bool:
    """A table row, reference or footnote: what no summary quotes, however few sentences
    there are (any text dense with numbers counts as a table here)."""
    tokens = text.split()
    numbers = sum(any(c.isdigit() for c in t) for t in tokens)
    return (numbers >= 0.3 * len(tokens) or answer_debris(text)
            or bool(_CITES.search(text)))


def outline(chunks: Sequence[Sequence[Candidate]]) -> Outline:
    """The sentences of a document's chunks (in document order) with their main sections.

    Each chunk's candidates know the heading above them within the chunk; a chunk that starts
    without one continues the section the chunk before ended in. When numbered sections leave
    nothing (their titles were lost to the reader), every heading counts as one.
    """
    repeats = Counter(title for chunk in chunks for title in {c.section for c in chunk})
    titles = {t for t in repeats if repeats[t] < max(RUNNING_HEADER, len(chunks) // 20)}
    numbered = len({_number(t) for t in titles if _number(t) and not _MATTER.match(t)}) >= 2
    chaptered = not numbered and sum(bool(_CHAPTER.match(t)) for t in titles) >= 2
    found = _collect(chunks, titles, numbered=numbered, chaptered=chaptered)
    if numbered and not found.sentences:
        found = _collect(chunks, titles, numbered=False, chaptered=False)
    return found


def _collect(chunks: Sequence[Sequence[Candidate]], titles: set[str], *, numbered: bool,
             chaptered: bool) -> Outline:
    keys: list[str] = []
    first: int | None = None
    found: list[Sentence] = []
    seen: set[str] = set()
    key = "" if not numbered else FRONT
    for number, chunk in enumerate(chunks):
        for cand in chunk:
            if cand.section in titles:
                key = _section_key(cand.section, key, numbered=numbered, keys=keys,
                                   chaptered=chaptered)
            text = " ".join(cand.text.split())
            if key == FRONT or text.lower() in seen or not _quotable(cand):
                continue
            seen.add(text.lower())
            if key not in keys:
                keys.append(key)
                if _KEEP_BEFORE_NUMBERS.match(key):
                    first = len(keys) - 1 if first is None else first
            found.append(Sentence(text, number, keys.index(key), level_of(cand)))
    return Outline(tuple(found), tuple(keys), first)


def _quotable(cand: Candidate) -> bool:
    """What a summary may fall back on when a text has too few body sentences."""
    return not is_debris(cand.text)


def _number(title: str) -> int:
    """The first number of a numbered section title ("2.1 Framework Core": 2), else 0; a
    table's row read as a title ("4 CP-2, RA-2, SA-14") is none."""
    match = _NUMBERED.match(title)
    if not match or sum(any(c.isdigit() for c in w) for w in title.split()[1:]) > 1:
        return 0
    return int(match.group(1))


def _section_key(title: str, current: str, *, numbered: bool, keys: list[str],
                 chaptered: bool = False) -> str:
    """The main section a heading starts: its first number when the document numbers its
    sections (an unnumbered title inside one stays in it; a number out of sequence, such as a
    stray line of an appendix's table, starts nothing), a chapter in a book with chapters,
    else the title itself."""
    if _MATTER.match(title):
        return FRONT
    if chaptered:
        return title if _CHAPTER.match(title) else current
    if not numbered:
        return current if _NO_TITLE.search(title) else title
    number = _number(title)
    reached = max((_number(k) for k in keys), default=0)
    if number and reached < number <= reached + 2:
        return title
    if _KEEP_BEFORE_NUMBERS.match(title) and not reached:
        return title
    return current


def pick(found: Outline, scores: Sequence[float], *, limit: int) -> list[int]:
    """Indexes of ``found.sentences`` to quote, best first (show them sorted: document order).

    ``scores``: how central each sentence is (within its section, or to the whole text).
    Sentences that are not body text count only when a text has fewer than ``limit``, and
    the last resort only when it has no other; a sentence saying what a pick says is skipped.
    """
    pool = [i for i, s in enumerate(found.sentences) if s.level == BODY]
    if len(pool) < limit:
        pool = [i for i, s in enumerate(found.sentences) if s.level >= PLAIN] or list(
            range(len(found.sentences)))
    groups: dict[int, list[int]] = {}
    for i in _distinct(found, sorted(pool, key=lambda i: (-scores[i], i))):
        groups.setdefault(found.sentences[i].section, []).append(i)
    order = sorted(groups, key=lambda s: (s != found.first, -len(groups[s]), s))[:limit]
    picks: list[int] = []
    for depth in range(limit):
        row = [groups[s][depth] for s in order if depth < len(groups[s])]
        picks += sorted(row, key=lambda i: (found.sentences[i].section != found.first,
                                            -scores[i], i))[: limit - len(picks)]
        if len(groups) >= min(limit, MANY_SECTIONS):
            break  # sections enough: a line each
    return picks


def _distinct(found: Outline, ranked: list[int]) -> list[int]:
    """``ranked`` without the sentences whose words mostly repeat a better one's."""
    kept: list[tuple[int, set[str]]] = []
    for i in ranked:
        bag = set(terms(found.sentences[i].text))
        if not any(len(bag & other) > SAME_TERMS * min(len(bag), len(other)) for _, other
                   in kept):
            kept.append((i, bag))
    return [i for i, _ in kept]


def overview_reply(cands: Sequence[Candidate], *, limit: int, label: str,
                   question: str = "") -> str:
    """The answerer's reply to "Summarise": the file the question names, or else the one most
    passages come from, summarised from its passages alone (a summary quotes one file)."""
    by_file: dict[str, list[list[Candidate]]] = {}
    passages: dict[int, list[Candidate]] = {}
    for cand in cands:
        passages.setdefault(cand.passage, []).append(cand)
    for chunk in passages.values():
        by_file.setdefault(chunk[0].source or chunk[0].topic, []).append(chunk)
    named = {name.lower() for name in named_files(question)}
    source = max(by_file, key=lambda f: (f.rsplit("/", 1)[-1].lower() in named,
                                         len(by_file[f]), -list(by_file).index(f)))
    found = outline(by_file[source])
    if not any(s.level >= PLAIN for s in found.sentences):
        return f"{label}: {NOTHING_TO_SUMMARISE}"
    texts = [s.text for s in found.sentences]
    chosen = sorted(pick(found, centrality_scores(texts), limit=limit))
    lines = [f"{label}: the most representative sentences of {source or 'the passages'}:"]
    return "\n".join(lines + [f"- {texts[i]}" for i in chosen])
