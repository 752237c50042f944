"""Text as the grounding checks compare it: folded (compatibility characters, quotes, dashes,
case and whitespace made one; ``[n]`` markers and emphasis gone), its word tokens, and its
content stems (stop words out, numbers in words as digits: "two" is "2").

The facts (``facts``), the claims (``claims``), the verdict and the presentation read answers
and passages through these, so a claim and a passage are compared the same way.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from ..prompts.citation_marks import normalise_citations
from ..search.lexical import STOPWORDS, stem
from .numbers import as_digits, shown, spelled_numbers

TOKEN = re.compile(r"[^\W_]+(?:[-'][^\W_]+)*", re.UNICODE)
# A negation, in folded text: a claim and its passage window that differ here disagree.
NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|cannot|can't|don't|doesn't|didn't|"
                      r"isn't|aren't|wasn't|weren't|without|unless)\b|n't\b")
# A sentence opening by pointing back to the one before ("This means ...", "It won't look like
# much"): read with it, when the model reads (``retrieval.neighbours``) and when the check does.
_REFERS_BACK = re.compile(r"^\W*(?:this|these|those|such|that|it|they|its|their|here)\b",
                          re.IGNORECASE)
MARKER = re.compile(r"\s*\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")


@lru_cache(maxsize=8192)  # a verdict folds each passage sentence once per fact of each claim
def fold(text: str) -> str:
    """``text`` for comparison: compatibility characters unfolded (ligatures, curly quotes,
    dashes), ``[n]`` markers and Markdown emphasis removed, case folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text))
    text = "".join(c for c in text if not unicodedata.combining(c))  # Beyoncé = Beyonce
    text = text.translate(_PLAIN)
    text = MARKER.sub("", text).replace("**", "").replace("__", "")
    return " ".join(text.casefold().split())


_PLAIN = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"',
                        "\u2013": "-", "\u2014": "-", "\u2212": "-", "\u00ad": "",
                        "\u00a0": " "})


def without_markers(text: str) -> str:
    """``text`` without the citation markers a model wrote, in whatever format (read by
    ``prompts.citation_marks``, the one reader of them): ragcore places its own."""
    cleaned = MARKER.sub("", normalise_citations(text))
    return re.sub(r"[ \t]+([.,;:!?])", r"\1", cleaned).strip()


def tokens(text: str) -> list[str]:
    """The folded word tokens of ``text``: hyphenated words kept whole and also split (but a
    number in words, "thirty-nine"), a possessive kept whole and also without its "'s"
    ("Azkaban's" states "Azkaban")."""
    found = []
    for token in TOKEN.findall(fold(text)):
        found.append(token)
        if "-" in token and not as_digits(token):  # "thirty-nine" is one number
            found += token.split("-")
        if token.endswith("'s") and len(token) > 2:
            found.append(token[:-2])
        unit = _UNIT.fullmatch(token)
        if unit and not (unit[2] == "s" and len(unit[1]) == 4):  # "45s", not the "1990s"
            found += [unit[1], _UNITS[unit[2]]]
    return found


# A number written with its unit's symbol ("45s", "150ms", "2GB") states the unit's word too:
# "**45 seconds**" is what "the grace period, 45s by default" says.
_UNITS = {"ms": "milliseconds", "s": "seconds", "sec": "seconds", "secs": "seconds",
          "min": "minutes", "mins": "minutes", "h": "hours", "hr": "hours", "hrs": "hours",
          "kb": "kilobytes", "mb": "megabytes", "gb": "gigabytes", "tb": "terabytes"}
_UNIT = re.compile(r"(\d+(?:\.\d+)?)(" + "|".join(_UNITS) + ")")
# Words that measure a number and say nothing without it ("**metres**." of "**620 metres**.").
UNIT_WORDS = frozenset(stem(w) for w in (
    *_UNITS.values(), "second", "minute", "hour", "day", "week", "month", "year", "byte", "bit",
    "percent", "meter", "metre", "kilometer", "kilometre", "mile", "foot", "feet", "inch",
    "gram", "kilogram", "pound", "ton", "tonne", "dollar", "euro", "degree", "time"))


def content_stems(text: str, compounds: bool = True) -> list[str]:
    """The stemmed content words of ``text`` in order: no stopwords, numbers in digits ("two"
    and "thirty-nine" as "2" and "39": the same word as the digits; "three hundred" also as
    "300", after the rest, unless not ``compounds``)."""
    words = tokens(text)
    stems = [as_digits(t) or stem(t) for t in words
             if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
    if not compounds:
        return stems
    return stems + [shown(v) for v in sorted(spelled_numbers(words)) if v >= 100]


def refers_back(sentence: str) -> bool:
    """Whether ``sentence`` opens by pointing back to the one before ("This means ...")."""
    return bool(_REFERS_BACK.match(sentence))
