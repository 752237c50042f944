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
