"""How the reader sees a sentence: the sentence first, then where it stands.

The reader (``model``) was trained on exactly this form (``training/reader/pairs.py``), so the
app and the training pairs must write it the same way: the sentence whose claim is scored
leads (a long context is cut from the end), then its heading and the sentence before it, which
often name what the sentence's "it" or "the client" is ("The client waits a further interval
called the grace period, 45s by default." stands after "... a Chubby client ...").

It was trained on prose only (SQuAD's Wikipedia paragraphs): a line of code or configuration
("ldt3 = 1979-05-27T07:32") is outside what it learned, and its chance there means nothing (it
gave that line 0.5 as the year TOML was first released). ``prose`` tells them apart; the check
reads only prose with the reader and leaves the rest to the word rules.
"""

from __future__ import annotations

import re
from functools import lru_cache

SEPARATOR = " | "
MAX_CONTEXT_CHARS = 300  # the sentence before, cut: the window is 128 tokens in all


def reader_text(sentence: str, heading: str = "", before: str = "") -> str:
    """``sentence`` as the reader reads it: then its ``heading`` and the sentence ``before``."""
    parts = [" ".join(sentence.split())]
    heading, before = " ".join(heading.split()), " ".join(before.split())
    if heading or before:
        parts.append(heading)
        parts.append(before[-MAX_CONTEXT_CHARS:])
    return SEPARATOR.join(parts).rstrip(" |")


# "key = value", "ldt3 = 1979-05-27T07:32", "opt-level = 0": an assignment, not a sentence
_ASSIGNMENT = re.compile(r"^\W{0,3}[\w.\-\[\]\"']+\s*:?=\s*\S")
_WORD = re.compile(r"[^\W\d_]{2,}")
_CODE_MARKS = frozenset("{}[]();=<>|\\$")
MIN_WORDS = 3
MAX_CODE_MARKS = 0.08  # of the sentence's characters that are not spaces


def prose(sentence: str) -> bool:
    """Whether ``sentence`` is prose the reader can read: at least ``MIN_WORDS`` words of
    letters, no assignment, and few of code's marks (brackets, "=", "$"; inline code's
    backticks are prose's own)."""
    if len(_WORD.findall(sentence)) < MIN_WORDS or _ASSIGNMENT.match(sentence):
        return False
    marks = sum(c in _CODE_MARKS for c in sentence)
    return marks <= MAX_CODE_MARKS * max(1, len("".join(sentence.split())))


# Code's names, which the reader reads as the question's own words: "--no-cache" is "no" and
# "cache" to its word pieces, so "The --no-cache option disables the cache." looked like the
# question with its answer cut out (0.009 for "Which option disables the cache?"; 0.84 with the
# flag written as a name). Each is read as a made-up name instead, the same name wherever the
# question or the sentence writes it.
_BACKTICKED = re.compile(r"`([^`\n]{1,60})`")
_CODE_NAME = re.compile(
    r"(?<![\w-])--?[A-Za-z][\w-]*"             # an option: -a, --no-cache
    r"|\b[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\(\)"  # a call: open(), os.path.join()
    r"|\b[A-Za-z]\w*(?:\.[A-Za-z_]\w*)+\b"     # a dotted name: asyncio.Queue, os.path
    r"|\b[A-Za-z]*_\w*[A-Za-z0-9]\b")          # a snake_case name: read_response, no_cache
_QUANTITY = re.compile(r"^[+-]?\d[\d.,:]*[A-Za-z%]{0,3}$")  # 6379, 45s, 0.5: read as numbers
_ABBREVIATION = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]?$")  # e.g, i.e: not a dotted name
NAMES = ("Zerbo", "Kolvan", "Tamsel", "Orvik", "Pendra", "Vossel", "Marnet", "Dulcan",
         "Brevik", "Sanbor", "Corvell", "Ildane")


def masked(question: str, text: str) -> tuple[str, str]:
    """``question`` and ``text`` with each name of code (an option, a call, a dotted or
    snake_case name, or a single word written as code in backticks) replaced by one of
    ``NAMES``, the same name for the same code in both (``-a/--text``: two names), and the
    backticks dropped. Numbers stay as written ("`6379`", "45s")."""
    found: dict[str, str] = {}
    for source in (question, text):
        for match in _BACKTICKED.finditer(source):
            inner = match.group(1).strip()
            if " " not in inner and not _CODE_NAME.search(inner):  # `crawl`, `0o`
                _name_for(inner, found)
        for code in _CODE_NAME.findall(source):
            _name_for(code, found)
    if not found:
        return question.replace("`", ""), text.replace("`", "")
    pattern = _names_pattern(tuple(sorted(found, key=len, reverse=True)))

    def written(source: str) -> str:
        return pattern.sub(lambda m: found[m.group(0)], source).replace("`", "")

    return written(question), written(text)


@lru_cache(maxsize=1024)  # the check reads a passage's sentences against one question
def _names_pattern(codes: tuple[str, ...]) -> re.Pattern[str]:
    """One pattern for ``codes`` (longest first), each a whole name, not part of a longer one."""
    return re.compile("|".join(rf"(?<![\w-]){re.escape(code)}(?![\w-])" for code in codes))


def _name_for(code: str, found: dict[str, str]) -> None:
    if code in found or _QUANTITY.match(code) or _ABBREVIATION.match(code):
        return
    count = len(found)
    found[code] = NAMES[count % len(NAMES)] + ("" if count < len(NAMES) else str(count))

