"""The facts a claim states that a passage must state too: numbers, names, quoted words, code.

A small model that misreads a passage gets the specifics wrong and the phrasing right: "40
bytes" where the passage says 80, an author from the reference list, a year the passage never
gives. Similarity of wording cannot see that (the sentence about the right topic scores high),
so every specific the claim states has to occur in a passage, after normalising both texts:

    fact     what it is                                  found when
    number   digits (1,000 = 1000; 15% = 15 percent),    the same value occurs (as digits or
             or number words ("four", "thirty-nine",     in words: "thirty-nine", "three
             "three hundred"; not "one")                 hundred", "one hundred and twenty")
    name     a capitalised word not opening the sentence the same word occurs (case folded)
             or a run of them; an acronym ("SSDF")
    whole    a name of several capitalised words         its words occur in that order
             ("Twilight Kondo"; "and" joins two names;   (a possessive, "of", "the" aside;
             a rare word opening the sentence opens it:  with or without hyphens:
             "Australia Twilight")                       "Redheaded" is "Red-Headed")
    quoted   text in quotes or in **bold** (the short    all its content words occur within one
             answer a gated reply opens with)            passage sentence and its neighbours;
             a token with no word to stem ("-a", "\\e")  the token as written, whole
    code     each identifier of a `code span`            a passage identifier starts with it
             ("__close__", "f64", "release")             (case folded): code is literal
    degree   a superlative or exclusive word: "the       the word or one of its group
             leading cause", "only passengers", "the     ("biggest" for "largest", "sole"
             main weapon" (not "not only")               for "only", "primary" for "main")
                                                         in any passage (``Facts.placed``:
                                                         not necessarily the claim's sentence)
    term     a word in lower case no English word list   the word occurs (or its stem)
             holds ("pydocstyle", "timestamps")
    item     each item of a run of three or more ("ink,  its content words occur (the first
             pens, blotting-paper, and a lamp")          item's last word: what precedes it
                                                         is the sentence's, not the item's)

A whole name catches the name a model (or a false premise) makes of two true ones: "Toru
Minegishi and Asuka Ohta wrote the music for Twilight Kondo" where the passage names Koji Kondo
and Twilight Princess. On the labelled claims' judge half it refutes two more invented claims
(83.1% to 85.7% in the answer's prompt) and one right claim whose name only the question
states ("Twilight Princess", the article's title); written after reading both halves' claims.

A term and an item are what a model adds to a list or a sentence the passage otherwise holds:
"Wilson had to bring his own ink, pens, blotting-paper, and a lamp" (no lamp in the passage),
"The pydocstyle tool checks these rules" (the passage names no tool). A term is a word the
English word list (``search.english_words``) lacks, in British spelling too: a tool, a coined
or technical word, never a word a paraphrase would choose. On the labelled claims they refute 8
invented claims of the fit half and 11 of the judge half, no right claim of either; the judge
half's invented claims refuted rise 85.7% to 89.6% (judged in the answer's prompt), 88.3% to
90.9% (judged afresh), 83.1% to 88.3% (the embedder), 77.9% to 83.1% (words alone); written
after reading both halves.

A degree is what a model adds to a claim whose words the passage otherwise holds: "Cancer is
the leading cause of death" where it says "the #2 cause", "the three main activities" where it
lists three; "first", "last", "most" and "best" are not among them (paraphrases say "the first
time" or "most iPods" as often as the passages do).

No model: plain functions over text as ``text`` folds it.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from ..search.english_words import english_lexicon
from ..search.lexical import STOPWORDS, stem
from .numbers import NUMBER, NUMBER_WORDS, TENS, shown, spelled_numbers, stated_number, value_of
from .text import MARKER, TOKEN, content_stems, fold, tokens

_QUOTED = re.compile(r"\*\*(.+?)\*\*|[\"\u201c](.{2,120}?)[\"\u201d]")
_CODE = re.compile(r"`([^`\n]+)`")
# A token that holds a letter or digit but no word to stem: a flag, an escape ("-a", "\\e").
_LITERAL = re.compile(r"[^\s\w]*\w{1,3}[^\s]*")
_IDENTIFIER = re.compile(r"\w+")
# Superlatives and exclusives, each word to its group's first (the group says the same).
_DEGREES = {word: group[0] for group in (
    ("largest", "biggest", "greatest"), ("main", "primary", "principal"),
    ("only", "sole", "solely", "exclusively"), ("leading", "foremost"), ("highest",),
    ("lowest",), ("smallest",), ("oldest",), ("youngest",), ("earliest",), ("newest",),
    ("longest",), ("shortest",), ("fastest",), ("slowest",)) for word in group}
_NOT_A_DEGREE = re.compile(r"\b(?:not|if) only\b")
# Capitalised words that open phrases or name nothing in particular.
_COMMON_CAPS = frozenset("""i a an the this that these those it its he she they we you there
    here in on at by for of to from with and or but not no yes if when where what which who
    how why some many most all each every both either neither one two three four five first
    second third also however therefore thus then finally according based note see section
    chapter figure table page appendix source sources passage passages document documents
    answer question support yes no mr mrs ms dr""".split())


@dataclass(frozen=True, slots=True)
class Facts:
    """The specifics of a claim: numbers (as values), names (folded words), quoted phrases
    (each a tuple of content stems)."""

    numbers: frozenset[float] = frozenset()
    names: frozenset[str] = frozenset()
    quoted: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (as written, its content stems)
    code: frozenset[str] = frozenset()  # identifiers of the claim's code spans, folded
    degrees: frozenset[str] = frozenset()  # its superlatives and exclusives, by group
    # names of several words: (as written, its words as a name is compared, ``_name_stems``)
    whole: frozenset[tuple[str, tuple[str, ...]]] = frozenset()
    terms: frozenset[str] = frozenset()  # words in lower case no English word list holds
    items: tuple[tuple[str, tuple[str, ...]], ...] = ()  # a run's items: (as written, stems)

    def __bool__(self) -> bool:
        return bool(self.numbers or self.names or self.quoted or self.code or self.degrees
                    or self.whole or self.terms or self.items)

    def placed(self) -> Facts:
        """The facts a claim's sentence must hold itself: all but its degrees, which may stand
        in the next ("ten to two. ... only four hours a day")."""
        return dataclasses.replace(self, degrees=frozenset())


@lru_cache(maxsize=8192)
def numbers_in(text: str) -> frozenset[float]:
    """Every number ``text`` states, in digits or as a number word."""
    folded = fold(text)
    values = {value_of(m.group(0)) for m in NUMBER.finditer(folded)}
    words = _words_split(folded)
    values |= {float(NUMBER_WORDS.get(w) or TENS[w]) for w in words
               if w in NUMBER_WORDS or w in TENS}
    return frozenset(values | spelled_numbers(words))


def _words_split(folded: str) -> list[str]:
    """The words of ``folded`` text, hyphenated ones split ("thirty-nine": "thirty", "nine"),
    identifiers left out ("var_two" states no number, as "var_2" does not)."""
    plain = _JOINED.sub(" ", folded)
    return [part for token in TOKEN.findall(plain) for part in token.split("-")]


_JOINED = re.compile(r"\w*_\w*")


def facts_of(claim: str) -> Facts:
    """The numbers, names and quoted phrases ``claim`` states (see the module docstring)."""
    plain = MARKER.sub("", claim)
    folded = fold(plain)
    digits = {value_of(m.group(0)) for m in NUMBER.finditer(folded)}
    # A count in words is a fact too ("over twenty years"), but not "one" (a pronoun as often).
    digits |= spelled_numbers(_words_split(folded), least=1) - {1.0}
    phrases = [" ".join((a or b).split()) for a, b in _QUOTED.findall(plain)]
    # a quoted token with no word to stem ("**-a**", "**\\e**"): stated as written, exactly
    quoted = tuple((p, tuple(content_stems(p))) for p in phrases
                   if content_stems(p) or _LITERAL.fullmatch(p))
    code = frozenset(w.lower() for span in _CODE.findall(plain) for w in _IDENTIFIER.findall(span)
                     if not w.isdigit())
    return Facts(frozenset(digits), frozenset(_names(plain)), quoted, code, _degrees(folded),
                 _whole_names(plain), _terms(plain), _listed(plain))


# British spellings the word list (American) lacks, to the American: "colour", "organise".
_AMERICAN = ((re.compile(r"our(s?)$"), r"or\1"), (re.compile(r"is(e|es|ed|ing|ation)$"), r"iz\1"),
             (re.compile(r"ys(e|es|ed|ing)$"), r"yz\1"), (re.compile(r"tre(s?)$"), r"ter\1"),
             (re.compile(r"ogue(s?)$"), r"og\1"), (re.compile(r"ence$"), "ense"))


def _terms(text: str) -> frozenset[str]:
    """The words of ``text`` written in lower case (a hyphenated word's parts each) that the
    English word list lacks (in British spelling too), folded; of three letters or more; not
    in a `code span` (the code's rule), nor holding a digit ("flake8": a token as written)."""
    words = english_lexicon().words
    found = set()
    plain = unicodedata.normalize("NFKC", _CODE.sub(" ", text)).replace("\u2019", "'")
    for part in (part for token in TOKEN.findall(plain) for part in token.split("-")):
        if not part or part[0].isupper() or any(c.isdigit() for c in part):
            continue  # a name or a sentence's first word (the names' rules), a code or a number
        word = part.lower().removesuffix("'s")
        if (len(word) > 2 and word not in words and word not in STOPWORDS
                and not any(rule.sub(to, word) in words for rule, to in _AMERICAN)):
            found.add(fold(word))
    return frozenset(found)


_ITEM = r"[\w'\u2019-]+(?: [\w'\u2019-]+){0,2}"
# A run of three or more items: "A, B, and C", "A, B or C" (each of up to three words).
_RUN = re.compile(rf"{_ITEM}(?:, {_ITEM})+,? (?:and|or) (?:an? |the )?{_ITEM}")
_RUN_SPLIT = re.compile(r",\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+")
_EXAMPLES = re.compile(r"^(?:for example|for instance|such as|including|like|e\.g\.?|i\.e\.?)\s+")


def _listed(text: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The items of the runs of three or more ``text`` lists, each as written and as its
    content stems (numbers aside: the numbers' rule); of the first item, its last word only
    (the run's pattern takes the words before it too); after "such as" or "for example", the
    items it introduces only."""
    found = []
    for run in _RUN.finditer(text):
        items = _RUN_SPLIT.split(run.group(0))
        # "a longer line, such as Black, flake8 and pycodestyle": the items follow "such as"
        first = max((k for k, item in enumerate(items) if _EXAMPLES.match(item)), default=0)
        for k, item in enumerate(items[first:]):
            item = _EXAMPLES.sub("", item)
            stems = tuple(s for s in content_stems(item, compounds=False) if not s.isdigit())
            if k == 0 and not first:
                item, stems = item.split()[-1], stems[-1:]
            if stems:
                found.append((item, stems))
    return tuple(found)


# A name of several capitalised words, a few small words allowed inside ("Bank of England",
# "Harry Potter and the Prisoner of Azkaban"), never starting inside a word ("iPod Hi-Fi").
NAME_RUN = re.compile(r"(?<![\w'\u2019-])[A-Z][\w'\u2019-]*(?:\s+(?:(?:of|the|and|de)\s+)?"
                      r"[A-Z][\w'\u2019-]*)+")
_INSIDE_NAME = frozenset({"of", "the", "de"})


def _whole_names(text: str) -> frozenset[tuple[str, tuple[str, ...]]]:
    """The names of several capitalised words of ``text`` (``NAME_RUN``; "and" joins two names
    here, "Cisco and Juniper"; a sentence's opening word when it is a common word, and common
    capitalised words, left off), each as written and as its words' stems."""
    found = set()
    for line in text.splitlines():
        for match in NAME_RUN.finditer(line):
            for k, part in enumerate(re.split(r"\s+and\s+", match.group(0))):
                words = part.split()
                if k == 0 and _opens(line, match.start()) and _common(words[0]):
                    words = words[1:]
                while words and (words[0].casefold() in _COMMON_CAPS
                                 or words[0].casefold() in _INSIDE_NAME):
                    words = words[1:]
                written = " ".join(words)
                stems = _name_stems(written)
                if len(stems) >= 2:
                    found.add((written, stems))
    return frozenset(found)


RARE = 1000  # a word the English word list counts fewer times is a name's, opening a sentence too


def _common(word: str) -> bool:
    """Whether a capitalised ``word`` opening a sentence may be a common word ("Later Holmes
    found", "Wireless Kondo"), not a name's first ("Australia Twilight", "Neville St. Clair")."""
    return english_lexicon().count(fold(word).removesuffix("'s")) >= RARE


@lru_cache(maxsize=4096)  # a verdict reads the same windows and sentences for every claim
def _name_stems(text: str, joined: bool = False) -> tuple[str, ...]:
    """``text``'s words as a name is compared: folded, a possessive's "'s" left off, hyphens
    split (or, ``joined``, left out: "Red-Headed" is "Redheaded"), "of", "the" and "de" left
    out, stemmed."""
    plain = re.sub(r"'s\b", "", fold(text))
    if joined:
        plain = re.sub(r"(?<=[^\W\d_])-(?=[^\W\d_])", "", plain)
    return tuple(stem(w) for w in re.findall(r"[^\W_]+", plain) if w not in _INSIDE_NAME)


def _stated_whole(written: str, name: tuple[str, ...], passage_text: str) -> bool:
    """Whether ``passage_text`` states the name ``written`` (its stems ``name``) whole: its
    words in that order, with or without hyphens ("Red-Headed League", "Redheaded League")."""
    if _in_order(name, _name_stems(passage_text)):
        return True
    return _in_order(_name_stems(written, joined=True), _name_stems(passage_text, joined=True))


def _in_order(name: tuple[str, ...], stems: tuple[str, ...]) -> bool:
    size = len(name)
    return any(stems[i:i + size] == name for i in range(len(stems) - size + 1))


def _degrees(folded: str) -> frozenset[str]:
    """The degree groups ``folded`` text says (see the module docstring)."""
    return frozenset(_DEGREES[t] for t in tokens(_NOT_A_DEGREE.sub(" ", folded)) if t in _DEGREES)


def missing_facts(facts: Facts, passage_text: str) -> list[str]:
    """The facts of a claim that ``passage_text`` (one passage, or several joined) lacks, in
    words ("the number 40", "the name Oslo", "“80 bytes”")."""
    if not facts:
        return []
    folded = fold(passage_text)
    words, stems, joined = _vocabulary(folded)
    stated = numbers_in(folded)
    missing = [f"the number {shown(n)}" for n in sorted(facts.numbers) if n not in stated]
    initials = _initials(passage_text) if facts.names else frozenset()
    missing += [f"the name {name}" for name in sorted(facts.names)
                if name not in words and stem(name) not in stems and name not in initials
                and name.replace("-", "") not in joined]
    # a name the passage spells out states it in a quoted phrase too: "**SP 800-31**" is
    # stated by "Special Publication 800-31" (the phrase's acronyms are among its names)
    spelled = initials & facts.names
    for written, phrase in facts.quoted:
        if not phrase:  # a literal ("-a", "\\e"): as written, not inside a longer token
            if not re.search(rf"(?<![\w-]){re.escape(written)}(?!\w)", passage_text):
                missing.append(f"\u201c{written}\u201d")
        elif not all(s in stems or s in words or stated_number(s, stated) or s in spelled
                     for s in phrase):
            missing.append(f"\u201c{written}\u201d")
    missing += [f"the name {written}" for written, name in sorted(facts.whole)
                if not _stated_whole(written, name, passage_text)]
    if facts.degrees:
        said = _degrees(folded)
        missing += [f"the word \u201c{word}\u201d" for word in sorted(facts.degrees - said)]
    missing += [f"the word {term}" for term in sorted(facts.terms)
                if term not in words and stem(term) not in stems]
    for written, item in facts.items:
        if not all(s in stems or s in words for s in item):
            missing.append(f"the item \u201c{written}\u201d")
    if facts.code:  # "0o" is stated by "0o77": a prefix, as code is read
        identifiers = {w.lower() for w in _IDENTIFIER.findall(passage_text)}
        missing += [f"`{word}`" for word in sorted(facts.code)
                    if not any(i.startswith(word) for i in identifiers)]
    return missing


@lru_cache(maxsize=8192)  # a verdict checks each passage sentence for every claim's facts
def _vocabulary(folded: str) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """The words of ``folded`` text (``tokens``), their stems, and the words without their
    hyphens ("red-headed" as "redheaded")."""
    words = frozenset(tokens(folded))
    return (words, frozenset(stem(w) for w in words),
            frozenset(w.replace("-", "") for w in words))


@lru_cache(maxsize=8192)
def _initials(text: str) -> frozenset[str]:
    """The acronyms a text spells out: the initials of its runs of two to six capitalised
    words ("New York City" -> "nyc"), small words inside a run skipped ("Department of
    Commerce" -> "doc")."""
    found = set()
    for run in re.finditer(r"(?:[A-Z][\w'-]*(?:\s+(?:of|and|for|the|de)\s+|\s+)){1,5}[A-Z][\w'-]*",
                           unicodedata.normalize("NFKC", text)):
        words = run.group(0).split()
        capitals = [w for w in words if w[0].isupper()]
        for size in range(2, len(capitals) + 1):
            for start in range(0, len(capitals) - size + 1):
                found.add("".join(w[0] for w in capitals[start:start + size]).casefold())
    return frozenset(found)


def each_fact(facts: Facts) -> list[tuple[Facts, frozenset[str]]]:
    """Every fact of ``facts`` on its own, with the words it is made of (to tell them apart
    from the rest of the claim)."""
    single = [(Facts(numbers=frozenset({n})), frozenset({shown(n)})) for n in facts.numbers]
    single += [(Facts(names=frozenset({n})), frozenset({stem(n)})) for n in facts.names]
    single += [(Facts(quoted=(q,)), frozenset(q[1])) for q in facts.quoted]
    single += [(Facts(code=frozenset({w})), frozenset(content_stems(w))) for w in facts.code]
    single += [(Facts(whole=frozenset({n})), frozenset(n[1])) for n in facts.whole]
    single += [(Facts(terms=frozenset({t})), frozenset({stem(t)})) for t in facts.terms]
    single += [(Facts(items=(i,)), frozenset(i[1])) for i in facts.items]
    return single


def _names(text: str) -> set[str]:
    """Folded capitalised words that are not a sentence's (or a line's) first word, acronyms
    anywhere; common capitalised words left out."""
    names = set()
    for line in text.splitlines():
        for match in TOKEN.finditer(line):
            word = match.group(0)
            folded = word.casefold()
            if folded in _COMMON_CAPS or not word[0].isupper():
                continue
            acronym = len(word) >= 2 and word.isupper()
            if acronym or not _opens(line, match.start()):
                names.add(fold(word).removesuffix("'s"))  # Wilson's: the name Wilson
    return names


_OPENING = re.compile(r"[.!?:;]\s+|^\s*(?:[-*\u2022]|\d+[.)])\s+|\*\*")


def _opens(line: str, start: int) -> bool:
    """Whether a word at ``start`` of ``line`` opens a sentence, the line, an item or a bold
    phrase (its capital says nothing of a name)."""
    return (line[:start].strip() in ("", "**")
            or any(m.end() == start for m in _OPENING.finditer(line)))
