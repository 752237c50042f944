"""Whether a short answer is the kind of thing its question asks for.

A model that finds no answer in its passages often writes the nearest phrase they hold:
"**475 Million vaccine doses**" when asked how much money the President asked for, "**245th
year**" when asked how long the speech lasted. The phrase is in a passage, so support alone
passes it; it is simply not an answer. A question that asks for a sum of money, a count, a
length of time, a year or a percentage says so in its words, and an answer of that kind shows
it in its own (a currency, a cardinal number, a year): ``mismatch`` names what was asked for
when the answer holds nothing of the kind, and ``unshown`` when an answer in sentences does not
("NIST has many employees, including ..." for how many it has). Questions whose answers take
any form ("what", "who", a bare "when") are judged by their form only in one way: an answer
made of the question's own words ("**Holmes**" for the name of Holmes's brother, "**King of
Bohemia**" for the name the King of Bohemia used) says nothing the question did not, except
where the question offers it a choice ("before or after ...?") or asks yes or no. What the passages
hold can still be of another kind (``unstated_kind``): a sum of money no passage sentence
gives as money ("**$475 million**" where they say "475 Million vaccine doses"), a count they
give only as money or a share ("**2**" where they say "$2 Trillion"), or, for a factoid, a
heading of the documents unless a section was asked for ("**4.5 General Header Fields**" for
the most header fields a request may have).
"""

from __future__ import annotations

import re
from typing import Sequence

from ..llms.extractive.question import asked_acronym, subject_of
from ..search.lexical import STOPWORDS
from .claims import READER_GAP, sentence_spans
from .facts import facts_of, numbers_in
from .text import content_stems, fold

_NUMBER_WORDS = (r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|"
                 r"fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|"
                 r"fifty|sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|billions?|"
                 r"trillions?|dozens?|half|a few|several|no|none|zero|once|twice")
# A cardinal number: digits that are not an ordinal ("245th") or a figure's label ("Figure 2"
# is still a number: the form alone cannot tell), or a number word.
_CARDINAL = re.compile(rf"(?<![\w.])\d[\d,.]*(?!\d)(?!(?:st|nd|rd|th)\b)|\b(?:{_NUMBER_WORDS})\b",
                       re.IGNORECASE)
# A count: a cardinal that is not the start of a name or an address ("100 Bureau Drive",
# "7 World Trade Center"): no capitalized word but a number's own follows it.
_COUNT = re.compile(rf"(?i:{_CARDINAL.pattern})(?!\s+(?!(?i:million|billion|trillion|thousand|"
                    r"hundred|dozen)s?\b)[A-Z][a-z])")
_MONEY = re.compile(r"[$€£¥₹]|\b(?:dollars?|cents?|euros?|pounds?|usd|eur|gbp|yen|"
                    r"rupees?|francs?|guineas?|shillings?|pence|sovereigns?|free|nothing)\b",
                    re.IGNORECASE)
_YEAR = re.compile(r"(?<!\d)(?:1\d|20)\d\d(?!\d)|\b\d{1,3}\s*(?:BC|BCE|AD|CE)\b|"
                   r"\b(?:\d+(?:st|nd|rd|th)|[a-z]+(?:teenth|tieth|th|st|nd|rd))\s+century\b",
                   re.IGNORECASE)
_SPAN_OF_TIME = re.compile(r"\b(?:a|an|one|half an?)\s+(?:\w+\s+)?(?:second|minute|hour|day|"
                           r"week|fortnight|month|season|year|decade|century|lifetime)s?\b|"
                           r"\b(?:seconds|minutes|hours|days|weeks|months|years|decades|"
                           r"centuries|ages)\b", re.IGNORECASE)
_DAY = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s|"
                  r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|"
                  r"yesterday|tomorrow)\b|\b\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\b|"
                  r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:jan|feb|mar|apr|may|jun|jul|aug|sep|"
                  r"oct|nov|dec)", re.IGNORECASE)
_PERCENT = re.compile(r"%|\bper ?cent\b|\bpercentage points?\b|\bhalf\b|\bquarter\b|\bthird\b",
                      re.IGNORECASE)

# What a question asks for, by its words: (the name said to a person, its pattern, the forms an
# answer of that kind shows one of).
_ASKS = (
    ("a sum of money", re.compile(
        r"\bhow much (?:money|funding|cash)\b|"
        r"\bhow much (?:does|did|do|will|would|is|was|could|should)\b[^?]*?"
        r"\b(?:cost|costs|charge|charges|pay|paid|spend|spent|earn|earned|raise|raised|"
        r"invest|invested|fine|fined|price|priced|offer|offered)\b|"
        r"\b(?:what|which) (?:is|was|are|were) the (?:price|cost|fee|salary|budget|fine)\b",
        re.IGNORECASE), (_MONEY,)),
    ("a count", re.compile(r"\bhow many\b|\bwhat (?:is|was) the number of\b", re.IGNORECASE),
     (_COUNT,)),
    ("a length of time", re.compile(r"^\s*(?:for )?how long\b[^?]*\b(?:last|lasted|take|took|"
                                    r"takes|run|ran|stay|stayed|live|lived|spend|spent|wait|"
                                    r"waited|keep|kept|go on|went on|serve|served)\b",
                                    re.IGNORECASE), (_CARDINAL, _SPAN_OF_TIME)),
    ("an age", re.compile(r"\bhow old\b|\b(?:at )?what age\b", re.IGNORECASE), (_CARDINAL,)),
    ("a year", re.compile(r"\b(?:in )?(?:what|which) year\b", re.IGNORECASE), (_YEAR,)),
    ("a date", re.compile(r"\b(?:on )?(?:what|which) (?:date|day)(?=\s+(?:is|was|were|did|does|"
                          r"do|will|has|had)\b|\s*\?)|\bwhat (?:is|was) the date\b",
                          re.IGNORECASE), (_DAY,)),  # a year alone is no day
    ("a percentage", re.compile(r"\bwhat (?:percent|percentage|share|proportion)\b",
                                re.IGNORECASE), (_PERCENT, _CARDINAL)),
)


def asked_for(question: str) -> str:
    """What ``question`` asks for when its words say ("a sum of money", "a count", "a length of
    time", "a year", "a date", "a percentage"); "" for any other question."""
    asked = _asked(question)
    return asked[0] if asked else ""


def asked_forms(question: str) -> tuple[re.Pattern[str], ...]:
    """The forms an answer to ``question`` shows one of (a currency for "how much money", a
    cardinal for "how old"); none for a question that asks for no form."""
    asked = _asked(question)
    return asked[1] if asked is not None else ()


def _asked(question: str) -> tuple[str, tuple[re.Pattern[str], ...]] | None:
    """What ``question`` asks for and the forms an answer of it shows, or None."""
    text = " ".join(question.split())
    return next(((name, forms) for name, pattern, forms in _ASKS if pattern.search(text)), None)


REPEATS = "more than the question's own words"
A_NAME = "a name"
# "What is the name of Gregor's sister?", "What was his full name?": a name is asked for
_ASKS_NAME = re.compile(r"\bwhat (?:is|was|are|were) (?:the )?names? of\b|\bwhat (?:is|was) "
                        r"(?:[\w'\u2019]+['\u2019]s|his|her|its|their) (?:first |last |full )?"
                        r"name\b", re.IGNORECASE)
_NAME_TOKEN = re.compile(r"`[^`]+`|[\w'\u2019.-]+")
_QUOTED = re.compile(r"\*\*[^*]+\*\*|\u201c[^\u201d]+\u201d|\"[^\"]+\"")
MONEY_UNSTATED = "a sum of money the documents state"
COUNT_UNSTATED = "a count the documents state"
# A number that is a sum of money or a share, not a count ("$2 Trillion", "the top 1%").
_NOT_A_COUNT = re.compile(r"[$€£¥₹]\s?\d[\d,.]*(?:\s*(?:thousand|million|billion|trillion)s?\b)?|"
                          r"\d[\d,.]*\s?(?:%|per ?cent\b)", re.IGNORECASE)
HEADING = "an answer but a heading of the documents"
# A heading line: numbered ("4.5 General Header Fields", "A.2 Examples"), or Markdown's.
_HEADING_LINE = re.compile(r"^\s*(?:#{1,6}\s+|(?:\d+|[A-Z])(?:\.\d+)*\.?\s+(?=[A-Z]))")
_UNDERLINE = re.compile(r"^\s*([=\-~^*#])\1{2,}\s*$")
_ASKS_SECTION = re.compile(r"\b(?:section|chapter|heading|title|part|appendix)s?\b",
                           re.IGNORECASE)
_WH = re.compile(r"\b(?:what|who|whom|whose|which|where|when|why|how)\b", re.IGNORECASE)
# Where a question asks a second thing: ", and in what year?", "and who ...".
_SECOND_ASK = re.compile(r",?\s+and\s+(?=(?:(?:in|on|at|by|for|from)\s+)?(?:what|who|whom|whose|"
                         r"which|where|when|why|how)\b)", re.IGNORECASE)
_YES_NO = re.compile(r"^\s*(?:is|are|was|were|do|does|did|can|could|should|would|will|has|have|"
                     r"had|may|must)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['\u2019]s?\b(?!\w)")
_NAMING = re.compile(r"(?:the\s+|his\s+|her\s+|its\s+|their\s+)?(?:\w+\s+)?(?:name|title|"
                     r"number|year|date|price|cost|age|size|length|amount)\b", re.IGNORECASE)
_CHOICE = re.compile(r"\bor\b|\bwhether\b|\beither\b", re.IGNORECASE)


def asks_yes_or_no(question: str) -> bool:
    """Whether ``question`` is answered yes or no ("Is Chubby a lock service?"), not a choice
    ("Is it TCP or UDP?")."""
    return bool(_YES_NO.match(question)) and not _CHOICE.search(question)


# What a question asks the documents to mention: "Did the President mention quantum
# computing?", "What does the speech say about Mars?", "Is Queen Elizabeth mentioned in it?".
_MENTION_AFTER = re.compile(r"\b(?:mention(?:s|ed)?|talk(?:s|ed)? about|discuss(?:es|ed)?|"
                            r"refer(?:s|red)? to|say(?:s)? (?:anything )?about|said (?:anything )?"
                            r"about)\s+(?P<topic>[^?]+)", re.IGNORECASE)
_MENTION_BEFORE = re.compile(r"^\s*(?:is|are|was|were)\s+(?P<topic>.+?)\s+(?:ever\s+)?(?:mentioned|"
                             r"discussed|talked about|referred to)\b", re.IGNORECASE)
_WHERE_SAID = re.compile(r"\s+(?:in|by|within|anywhere in)\s+(?:the|this|these|that|any)\b.*$|"
                         r"^(?:the|a|an)\s+", re.IGNORECASE)


def mention_topic(question: str) -> str | None:
    """What ``question`` asks whether, or what, the documents say about ("quantum computing");
    None for another question."""
    found = _MENTION_BEFORE.match(question) or _MENTION_AFTER.search(question)
    if found is None:
        return None
    topic = _WHERE_SAID.sub("", found["topic"].strip(" .,!'\"")).strip()
    return topic or None


# A title says nothing of who a person is: "Mr. Angel" for "Who was Hosmer Angel really?".
_HONORIFIC = re.compile(r"\b(?:mr|mrs|ms|miss|mister|dr|doctor|sir|lord|lady|madam|professor|"
                        r"prof|captain|colonel)\b\.?", re.IGNORECASE)
# A written form (a URL, a path, a dotted name, a command-line flag): "http://a/g" is not the
# words "http", "a", "g", nor "--text" the word "text".
_FORMS = re.compile(r"[^\s*`\"'\u201c\u201d]*[\w][/.:_@#\\][^\s*`\"'\u201c\u201d]*[\w/]"
                    r"|(?<![\w-])--?[^\W\d_][\w-]*")
_ASKS_NAME = re.compile(r"\bwho\b|\bwhom\b|\bname\b", re.IGNORECASE)
# Where a role's complement starts: "Ukrainian Ambassador | to the United States".
_COMPLEMENT = re.compile(r"\s(?:to|of|for|from|at|in|on)\s", re.IGNORECASE)


def mismatch(question: str, answer: str) -> str:
    """What ``question`` asks for, when the short ``answer`` holds nothing of that kind (a
    "how many" answered with no count; ``REPEATS`` for an answer of the question's own
    words); "" when it fits or the question does not say."""
    if repeats(question, answer):
        return REPEATS
    return unshown(question, answer)


def unshown(question: str, text: str) -> str:
    """What ``question`` asks for (a count, a sum of money, a year, a name ...) when ``text``
    shows nothing of that kind ("NIST has many employees." for "How many employees does NIST
    have?"); "" when it shows one or the question asks for no form."""
    if _ASKS_NAME.search(question) and not _SECOND_ASK.search(question):
        return "" if _shows_a_name(question, text) else A_NAME
    # "Who coined the term C10K, and in what year?": the answer may answer either part.
    parts = [_asked(part) for part in _SECOND_ASK.split(question)]
    if any(asked is None or any(form.search(text) for form in asked[1]) for asked in parts):
        return ""
    return parts[0][0]


def _shows_a_name(question: str, text: str) -> bool:
    """Whether ``text`` writes a name ``question`` does not: a capitalized word ("Grete"), code
    ("`--text`", "RIPGREP_CONFIG_PATH") or a quoted or bold phrase."""
    asked = {_bare(word) for word in _NAME_TOKEN.findall(question)}
    quoted = " ".join(_QUOTED.findall(text))
    for word in _NAME_TOKEN.findall(text.replace("**", "")):
        bare = word.strip("`'\u2019.-")
        if not bare or _bare(bare) in asked:
            continue
        if (word.startswith("`") or re.search(r"[_/]|^-|\w\.\w", word) or word in quoted
                or (bare[0].isupper() and bare.casefold() not in STOPWORDS)):
            return True
    return False


def _bare(word: str) -> str:
    """A word as a name is compared: folded, without its possessive "'s"."""
    return re.sub(r"['\u2019]s$", "", word.casefold())


def written_forms(text: str) -> list[str]:
    """The written forms in ``text`` that hold a letter: URLs, paths, dotted names, flags
    ("--text"), each stated only as written."""
    return [form for form in _FORMS.findall(text) if any(c.isalpha() for c in form)]


def _defines(question: str) -> bool:
    """A "What is X?" asking what X is, not "What is the name of X?" (which asks for a name),
    or a "What does X stand for?"."""
    if asked_acronym(question):
        return True
    subject = subject_of(question)
    return bool(subject) and not _NAMING.match(subject)


def repeats(question: str, answer: str) -> bool:
    """Whether ``answer`` is made of words of ``question`` alone, titles ("Mr.") aside, which
    asks with a wh-word and offers no choice ("or", "whether"), no yes or no, and is no "What
    is X?" or "What does X stand for?" (whose short answer names X before its sentence defines
    it). Asked for a name, an answer that is the question's role with its complement ("the
    Ukrainian Ambassador to the United States") repeats it too: a role is no name."""
    said = _stems(answer)
    if (not said or not _WH.search(question) or _YES_NO.match(question)
            or _CHOICE.search(question) or _defines(question)):
        return False
    asked = _stems(question)
    if said <= asked:
        # a written form the question lacks ("http://a/g", "os.path") is no repetition
        return not any(token not in question for token in written_forms(answer))
    role = _stems(_COMPLEMENT.split(answer, maxsplit=1)[0])
    return bool(_ASKS_NAME.search(question)) and len(role) >= 2 and role <= asked


_STATEMENT = re.compile(r"^\s*(?:why\b|how\b(?!\s+(?:many|much|long|old|often|far|big|large|"
                        r"tall|soon)\b)|what\b)", re.IGNORECASE)


_EXPLAINS = re.compile(r"^\s*(?:why\b|how\b(?!\s+(?:many|much|long|old|often|far|big|large|"
                       r"tall|soon)\b))", re.IGNORECASE)


def wants_an_explanation(question: str) -> bool:
    """Whether ``question`` asks why or how (not "how many", "how long" ...): its answer is an
    explanation in the model's words, not one fact a sentence states."""
    return bool(_EXPLAINS.match(question))


def wants_a_statement(question: str) -> bool:
    """Whether ``question`` is answered by a statement rather than a name or a value: a "why",
    a "how" (not "how many", "how long" ...), or a "what" asking for no name and no value
    ("What was one of the first uses of a greenhouse?")."""
    return bool(_STATEMENT.match(question)) and not _ASKS_NAME.search(question) and (
        not asked_for(question))


def _stems(text: str) -> set[str]:
    """The content stems of ``text``, possessives and titles left out."""
    return set(content_stems(_HONORIFIC.sub(" ", _POSSESSIVE.sub("", text))))


def unstated_kind(question: str, answer: str, passages: Sequence[str], *, short: bool,
                  factoid: bool) -> str:
    """What the lead ``answer`` is not, though the passages hold it: for a ``short`` one, a
    sum of money or a count they give as one (``money_unstated``, ``count_unstated``); for a
    ``factoid``'s, an answer rather than a heading (``heading_only``); "" when none applies."""
    if short:
        off = money_unstated(question, answer, passages) or count_unstated(question, answer,
                                                                           passages)
        if off:
            return off
    return heading_only(question, answer, passages) if factoid else ""


def money_unstated(question: str, answer: str, passages: Sequence[str]) -> str:
    """``MONEY_UNSTATED`` when ``question`` asks for a sum of money, the short ``answer`` gives
    one, and no passage sentence states its number as money ("**$475 million**" where the
    passages say "475 Million vaccine doses"); "" otherwise."""
    asked = _asked(question)
    numbers = facts_of(answer).numbers
    if asked is None or asked[0] != "a sum of money" or not numbers or not _MONEY.search(answer):
        return ""
    for text in passages:
        for start, end in sentence_spans(text, wrapped=True):
            sentence = text[start:end]
            if numbers & numbers_in(sentence) and _MONEY.search(sentence):
                return ""
    return MONEY_UNSTATED


def count_unstated(question: str, answer: str, passages: Sequence[str]) -> str:
    """``COUNT_UNSTATED`` when ``question`` asks how many, the short ``answer`` gives a number
    and no passage states that number but as a sum of money or a share ("**2**" for how many
    people were in the Chamber, where the passages say "$2 Trillion" and "the top 1%"), or as
    a count of another thing than asked, wherever it stands ("**150**" for how many
    organizations adopted the SSDF, where they say "150 position papers"; "**1**" for how many
    agencies, where they say "CHAPTER 1 PAGE 2"): that is "a count of organizations the
    documents state"; "" otherwise (a number no passage states at all is the verdict's missing
    fact)."""
    asked = _asked(question)
    numbers = facts_of(answer).numbers
    if asked is None or asked[0] != "a count" or not numbers or _MONEY.search(answer):
        return ""
    everything = "\n".join(passages)
    stated, counted = numbers_in(everything), numbers_in(_NOT_A_COUNT.sub(" ", everything))
    if numbers & stated and not numbers & counted:
        return COUNT_UNSTATED
    thing = _counted_thing(question)
    if thing and numbers & stated and _counts_other_things(numbers, thing[1], everything):
        return f"a count of {thing[0]} the documents state"
    return ""


# "How many federal agencies ...": the thing counted, its first two words at most.
_HOW_MANY = re.compile(r"\bhow many\s+((?:[\w-]+\s+)?[\w-]+)", re.IGNORECASE)
_NUMBER_TOKEN = re.compile(r"[^\W_]+(?:[.,'\u2019-][^\W_]+)*")
_SCALE = frozenset("hundred hundreds thousand thousands million millions billion billions "
                   "trillion trillions dozen dozens".split())


def _counted_thing(question: str) -> tuple[str, frozenset[str]] | None:
    """What "how many" asks to count, as written and as stems ("federal agencies"); None when
    no noun follows ("how many did ...")."""
    match = _HOW_MANY.search(question)
    if match is None:
        return None
    words = match.group(1).split()
    if words[0].lower() in STOPWORDS:
        return None
    if len(words) > 1 and words[1].lower() in STOPWORDS:
        words = words[:1]
    return " ".join(words), frozenset(content_stems(" ".join(words)))


def _counts_other_things(numbers: frozenset[float], thing: frozenset[str], text: str) -> bool:
    """Whether every place ``text`` states one of ``numbers`` (as one token: "150", "twenty-
    seven") it counts another thing than ``thing``: a word follows it (past "million" and the
    like) and neither it nor the next is the thing. A number followed by a small word ("69,197
    were confirmed dead") may count anything: then False, as when no place is found."""
    found = _NUMBER_TOKEN.findall(fold(text))
    places = 0
    for i, token in enumerate(found):
        if not numbers & numbers_in(token):
            continue
        after = [t for t in found[i + 1:i + 4] if t not in _SCALE][:2]
        if not after or after[0] in STOPWORDS or _CARDINAL.fullmatch(after[0]):
            return False
        if thing & set(content_stems(" ".join(after))):
            return False
        places += 1
    return places > 0


def heading_only(question: str, answer: str, passages: Sequence[str]) -> str:
    """``HEADING`` when ``answer`` (an answer's lead, however long) is a heading line of a
    passage (numbered, in Markdown, or underlined; with or without its number) and
    ``question`` asks for no section or title; "" otherwise."""
    written = _flat(answer.replace("*", ""))
    if not written or _ASKS_SECTION.search(question):
        return ""
    for text in passages:
        # a line, or a piece of one between the sentence reader's gaps ("… 4.5 General
        # Header Fields … There are a few header fields ...")
        lines = [piece for line in text.splitlines() for piece in READER_GAP.split(line)]
        for i, line in enumerate(lines):
            underlined = i + 1 < len(lines) and bool(_UNDERLINE.match(lines[i + 1]))
            if not (_HEADING_LINE.match(line) or underlined):
                continue
            if written in (_flat(line), _flat(_HEADING_LINE.sub("", line))):
                return HEADING
    return ""


def _flat(text: str) -> str:
    """``text`` folded for comparing a line: lower case, single spaces, no end punctuation."""
    return " ".join(text.lower().split()).strip(" .:")
