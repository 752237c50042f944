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


_SMALL = {value: word for word, value in UNITS.items()} | {value: word for word, value in
                                                            TENS.items()}


def in_words(value: float) -> tuple[str, ...]:
    """The ways English spells a whole number below a million ("thirty-nine", "thirty nine";
    "three hundred and fifty", "three hundred fifty"; "a hundred", "one hundred"); () for any
    other value."""
    if value != int(value) or not 0 < value < 10**6:
        return ()
    number = int(value)
    if number >= 1000:
        high, low = divmod(number, 1000)
        heads = [f"{h} thousand" for h in in_words(high)] + (["a thousand"] if high == 1 else [])
        if not low:
            return tuple(heads)
        tails = in_words(low)
        joins = (" ", " and ") if low < 100 else (" ",)
        return tuple(f"{h}{j}{t}" for h in heads for j in joins for t in tails)
    if number >= 100:
        high, low = divmod(number, 100)
        heads = [f"{_SMALL[high]} hundred"] + (["a hundred"] if high == 1 else [])
        if not low:
            return tuple(heads)
        return tuple(f"{h}{j}{t}" for h in heads for j in (" and ", " ") for t in in_words(low))
    if number in _SMALL:
        return (_SMALL[number],)
    tens, unit = divmod(number, 10)
    return (f"{_SMALL[tens * 10]}-{_SMALL[unit]}", f"{_SMALL[tens * 10]} {_SMALL[unit]}")


def as_written_in(text: str, source: str) -> str:
    """``text`` with each number in digits that ``source`` spells in words written as
    ``source`` writes it ("300 pounds" -> "three hundred pounds"): a claim so worded can be
    asked of a reader who compares words ("as written")."""
    def written(match: re.Match[str]) -> str:
        digits = match.group(0)
        if re.search(rf"(?<![\w.,]){re.escape(digits)}(?![\w]|[.,]\d)", source):
            return digits
        for words in sorted(in_words(value_of(digits)), key=len, reverse=True):
            found = re.search(rf"(?<![\w-]){re.escape(words)}(?![\w-])", source, re.IGNORECASE)
            if found:
                return found.group(0)
        return digits
    return _WHOLE.sub(written, text)


# A whole number in digits ("300", "1,000"), not part of a decimal or a version ("1.0", "2.7.1").
_WHOLE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?![\w]|[.,]\d)")
