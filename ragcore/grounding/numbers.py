"""Numbers as a text states them: in digits ("1,000", "15.5") or in words ("thirty-nine",
"three hundred", "a hundred and fifty", "twice"), each read to its value.

The grounding facts (``facts``) compare a claim's numbers with a passage's by value, so "two"
states 2 and "three hundred" states 300; the list reader (``retrieval.ordinals``) reads
"first" and "second" with ``NUMBER_WORDS``. Plain functions over folded text (``text.fold``).
"""

from __future__ import annotations

import re

NUMBER_WORDS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "hundred": 100, "thousand": 1000, "million": 10**6,
    "billion": 10**9, "half": 0.5, "once": 1, "twice": 2,
}
TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
        "eighty": 80, "ninety": 90}
SCALES = {"thousand": 1000, "million": 10**6, "billion": 10**9}
UNITS = {word: NUMBER_WORDS[word] for word in """one two three four five six seven eight nine
    ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen""".split()}
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\w)|(?<![\w.])\d+(?:\.\d+)?")


def as_digits(token: str) -> str:
    """A number word ("two", "thirty-nine") in digits; "" for any other token."""
    value = UNITS.get(token) or TENS.get(token)
    if value is None and "-" in token:
        parts = token.split("-")
        if all(part in UNITS or part in TENS for part in parts):
            value = next(iter(spelled_numbers(parts, least=len(parts))), None)
    return "" if value is None else shown(float(value))


def spelled_numbers(words: list[str], least: int = 2) -> set[float]:
    """The values of runs of number words ("thirty nine" = 39, "three hundred" = 300, "a
    hundred and fifty" = 150, "two thousand five hundred" = 2500); ``words`` are folded,
    hyphenated words already split; runs of at least ``least`` words. "and" joins only after
    "hundred" or a scale word."""
    values: set[float] = set()
    total = current = run = 0
    joins = False  # the last word was "hundred" or a scale: an "and" may follow
    for word in [*words, ""]:
        small = TENS.get(word) or UNITS.get(word)
        if small is not None:
            current += small
        elif word == "hundred":  # "a hundred and fifty" starts at "hundred"
            current = (current or 1) * 100
        elif word in SCALES:
            total, current = total + (current or 1) * SCALES[word], 0
        elif word == "and" and joins:
            joins = False
            continue
        else:
            if run >= least:
                values.add(float(total + current))
            total = current = run = 0
            joins = False
            continue
        run += 1
        joins = word == "hundred" or word in SCALES
    return values


def stated_number(word: str, stated: set[float]) -> bool:
    """Whether ``word`` is a number the text states (in digits or in words)."""
    value = NUMBER_WORDS.get(word)
    if value is None:
        try:
            value = float(word.replace(",", ""))
        except ValueError:
            return False
    return float(value) in stated


def value_of(number: str) -> float:
    return float(number.replace(",", ""))


def shown(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)
