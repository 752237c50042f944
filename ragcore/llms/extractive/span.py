"""Short answers: the phrase of a sentence that answers a factoid question, and its features.

A factoid question ("Who made Ralph earl?", "When did Ronald Robinson die?", "How many ...?",
"Which city ...?") is answered by a phrase: a name, a date, a number, a place, a short noun
phrase. ``answer_type`` reads what kind of phrase the question wants from its wh-word and the
noun after it ("what year" wants a date, "which river" a name); questions that want
explanations, manners, lists or definitions ("why", "how does", "what are the rules", "what is
X") get no short answer (type ``None``): their answer is sentences.

``spans`` lists the phrases of a sentence that could be an answer: runs of up to
``MAX_SPAN_WORDS`` words that neither start nor end on a function word or inside punctuation.
``features`` describes one such span for the learned scorer (``model``): what the
question wants against the span's shape (capitalised, a year, a number, a month), how close
it sits to the question's words in the sentence and on which side (the SQuAD sliding-window
and distance features), whether it repeats the question (answers rarely do), the words around
it, and how well its sentence answers the question as a whole. Features are named strings with
values, so the model file is readable and a missing feature simply weighs nothing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Sequence

from ...search.lexical import stem
from .question import asks_for_list

MAX_SPAN_WORDS = 8
_HONORIFIC = r"(?:Mr|Mrs|Ms|Dr|St|Jr|Sr|Prof|Gen|Col|Capt|Lt|Rev|Sgt|Gov|Sen|Rep)\."
_TOKEN = re.compile(rf"{_HONORIFIC}|\$?\d+(?:[.,:]\d+)*%?|\w+(?:['\u2019\-.]\w+)*|[^\w\s]")
_TITLE = re.compile(rf"^{_HONORIFIC}$")
_FUNCTION = frozenset(
    """a an the of in on at by for from to with into onto upon over under about as and or but
    nor so than that which who whom whose what when where why how is are was were be been being
    has have had do does did this these those it its he she they them his her their there here
    not no also only very just such both either neither each every any some all most more many
    much can could would should will shall may might must if then while after before during
    since until because although though via per i me my we us our you your him himself
    herself itself themselves one now then today yet still thus hence indeed however surely
    finally moreover furthermore therefore meanwhile instead perhaps certainly eventually
    already nevertheless nonetheless besides otherwise likewise""".split()
)
_MONTHS = frozenset("""january february march april may june july august september october
    november december jan feb mar apr jun jul aug sep sept oct nov dec""".split())
_NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve
    thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
    seventy eighty ninety hundred thousand million billion trillion dozen half first second
    third fourth fifth sixth seventh eighth ninth tenth""".split())
_INNER_PUNCT = frozenset(",-\u2013'\u2019.&/")  # the en dash of ranges: "1851-1921"
_DATE_NOUNS = frozenset("year years date day days month months century decade era time "
                        "period season age birthday".split())
_PLACE_NOUNS = frozenset("city country state place location region continent county town "
                         "area province nation island river mountain capital village street "
                         "neighborhood neighbourhood borough district site venue".split())
_PERSON_NOUNS = frozenset("person man woman people artist singer author writer leader king "
                          "queen president emperor player actor actress composer director "
                          "name group band company organization team judge justice senator "
                          "governor minister mayor scientist architect general officer founder "
                          "inventor poet painter musician member candidate nominee chief pope "
                          "prince princess lord lady duke wife husband son daughter father "
                          "mother brother sister friend owner teacher student doctor".split())
_NUMBER_NOUNS = frozenset("number percentage percent amount price cost rate size population "
                          "total count score height length weight distance speed "
                          "pages".split())
_NOT_PHRASE = re.compile(
    r"^\s*(?:why|how (?:do|does|did|can|could|should|would|is|are|was|were|to)\b)|"
    r"^\s*(?:what|which) (?:are|were) (?:the )?(?:\w+ )?(?:rules|steps|ways|types|kinds|"
    r"functions|principles|reasons|differences|benefits|features|components|parts|stages|"
    r"elements|categories|requirements)\b|"
    r"^\s*(?:list|describe|explain|summari[sz]e|compare|define)\b|\bdifference between\b", re.I)
_DEFINITION = re.compile(r"^\s*what (?:is|are) (?:an? |the )?(?:\w+\W*){1,3}\??\s*$", re.I)
_NAMED = re.compile(r"\b(?:name|called|named|known as|nickname)\b", re.I)
_HEAD = re.compile(r"^\s*(?:in |on |at |by |to |for |from |of )?(?:what|which|whose)\s+"
                   r"(?:kind of |type of |sort of )?(\w+)", re.I)


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int

    @property
    def low(self) -> str:
        return self.text.casefold()

    @property
    def is_word(self) -> bool:
        return self.text[0].isalnum() or self.text[0] == "$"


@dataclass(frozen=True, slots=True)
class Span:
    """Words ``first`` to ``last`` (inclusive) of a sentence's tokens."""

    first: int
    last: int


def tokens(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def answer_type(question: str) -> str | None:
    """What kind of phrase answers ``question``: person, date, place, number, quantity, name,
    entity:<noun>, other; None when its answer is sentences (why, how, lists, definitions)."""
    q = question.strip()
    low = q.casefold()
    if _NOT_PHRASE.search(q) or (_DEFINITION.match(q) and not _NAMED.search(q)) \
            or re.search(r"\bwhy\b", low) or asks_for_list(q):
        return None
    if re.match(r"^\s*(?:who|whom|whose)\b", low) or re.search(r"\bby whom\b", low):
        return "person"
    if re.search(r"\bwhen\b|\bwhat (?:year|date|day|month|century|decade|time)\b", low):
        return "date"
    if re.search(r"\bwhere\b", low):
        return "place"
    if re.search(r"\bhow (?:many|much)\b", low):
        return "number"
    if re.search(r"\bhow (?:long|old|far|big|large|tall|high|fast|often|wide|deep)\b", low):
        return "quantity"
    if _NAMED.search(low):
        return "name"
    head = _HEAD.search(q)
    if head and head.group(1).casefold() != "about":
        return _noun_kind([head.group(1)]) or "entity"
    if head:  # "and what about its page count?": the kind of thing it names
        return _noun_kind(re.findall(r"\w+", q[head.end():])) or "other"
    return "other"


def _noun_kind(nouns: Sequence[str]) -> str | None:
    """The kind of phrase the first telling noun of ``nouns`` asks for ("year": a date)."""
    for noun in (n.casefold() for n in nouns):
        for kind, kinds in (("date", _DATE_NOUNS), ("place", _PLACE_NOUNS),
                            ("person", _PERSON_NOUNS), ("number", _NUMBER_NOUNS)):
            if noun in kinds or noun.rstrip("s") in kinds:
                return kind
    return None


_TYPE_SKIP = frozenset("is are was were be been did does do has have had the a an of kind type "
                       "sort".split())
_TYPE_STOP = frozenset("""a an the of in on at by for from to with into as and or but that which
    who whom whose what when where why how is are was were be been being has have had do does did
    this these those it its he she they them his her their not no can could would should will
    shall may might must if""".split())  # where the words naming the answer's kind end
_TYPE_WORDS = re.compile(r"\b(?:what|which|whose)\b((?:\s+[\w'-]+){1,6})", re.I)
_NAME_OF = re.compile(r"\bname of (?:the |a |an )?([\w'-]+)", re.I)
_KIND_WORDS = {"person": "person", "date": "date year", "place": "place location",
               "number": "number", "quantity": "amount"}


def type_words(question: str, kind: str) -> str | None:
    """The words of ``question`` that say what kind of thing answers it ("Indie band" of
    "Which Indie band ...?", "album" of "... the name of the album?"), else a word for its
    answer type ("person" for "who"); None when neither says anything. The scorer compares
    each phrase's meaning with them (``model.typed_rows``)."""
    named = _NAME_OF.search(question)
    if named:
        return named.group(1)
    words: list[str] = []
    found = _TYPE_WORDS.search(question)
    for word in found.group(1).split() if found else []:
        low = word.casefold()
        if not words and low in _TYPE_SKIP:
            continue
        if low in _TYPE_STOP or len(words) == 2:
            break
        words.append(word)
    return " ".join(words) or _KIND_WORDS.get(kind)


def head_noun(question: str) -> str:
    """The noun after the wh-word ("river" in "Which river ...?"), stemmed; "" if none."""
    head = _HEAD.search(question)
    return stem(head.group(1).casefold()) if head else ""


def spans(toks: Sequence[Token], *, limit: int = MAX_SPAN_WORDS) -> list[Span]:
    """The phrases of a sentence that could answer: word runs that start and end on content
    words and hold no punctuation but what names, numbers and ranges carry (", - ' . & /" and
    the en dash)."""
    out: list[Span] = []
    for i, first in enumerate(toks):
        if not first.is_word or first.low in _FUNCTION:
            continue
        for j in range(i, min(len(toks), i + limit)):
            tok = toks[j]
            if not tok.is_word and tok.text not in _INNER_PUNCT:
                break
            if tok.is_word and tok.low not in _FUNCTION and not _TITLE.match(tok.text) \
                    and not _cut_short(toks, j):
                out.append(Span(i, j))  # "Mr." alone names no one
    return out


_INITIALS = re.compile(r"^[A-Z](?:\.[A-Z])*$")  # "F" of "Eric F. Wieschaus", "J.S" of "J.S. Bach"
_BEFORE_NUMBER = frozenset("op no nos vol vols pp".split())  # "Op. 60", "No. 5"


def _cut_short(toks: Sequence[Token], j: int) -> bool:
    """Whether a phrase ending on word ``j`` would stop inside a name or a date: at an initial
    or "Op"/"No" before its full stop and what follows ("Eric F", "Barcarolle Op"), or at a
    day before its year ("November 19" of "November 19, 2006")."""
    after = toks[j + 1:j + 3]
    if len(after) < 2 or not after[1].is_word:
        return False
    if after[0].text == ".":  # a name goes on after an initial, a number after "Op."
        return (bool(_INITIALS.match(toks[j].text)) and after[1].text[0].isupper()) \
            or (toks[j].low in _BEFORE_NUMBER and after[1].text[0].isdigit())
    return (after[0].text == "," and j > 0 and toks[j - 1].low in _MONTHS
            and toks[j].text.isdigit() and len(after[1].text) == 4 and after[1].text.isdigit())


def shape(words: Sequence[Token]) -> str:
    """The span's look: year, date, number, money, percent, name, lower or mixed."""
    texts = [t.text for t in words if t.is_word]
    lows = {t.casefold() for t in texts}
    if any(re.fullmatch(r"1[5-9]\d\d|20\d\d|\d{3,4}s", t) for t in texts):
        return "date" if lows & _MONTHS else "year"
    if lows & _MONTHS:
        return "date"
    if any(t.startswith("$") for t in texts):
        return "money"
    if any(t.endswith("%") for t in texts) or "percent" in lows:
        return "percent"
    if any(t[0].isdigit() for t in texts) or lows & _NUMBER_WORDS:
        return "number"
    content = [t for t in texts if t.casefold() not in _FUNCTION]
    if content and all(t[0].isupper() for t in content):
        return "name"
    if all(t[0].islower() for t in texts):
        return "lower"
    return "mixed"


def _neighbour(toks: Sequence[Token], k: int) -> str:
    """How a word beside a span reads for the features: a function word or punctuation as
    itself; other words by their look."""
    if k < 0:
        return "^"
    if k >= len(toks):
        return "$"
    tok = toks[k]
    if not tok.is_word or tok.low in _FUNCTION:
        return tok.low
    return "Cap" if tok.text[0].isupper() else "Num" if tok.text[0].isdigit() else "w"


def features(
    toks: Sequence[Token],
    span: Span,
    kind: str,
    asked: dict[str, float],
    sides: dict[str, int],
    head: str,
    sentence: dict[str, float],
    rarity: dict[str, float],
) -> dict[str, float]:
    """The named features of ``span`` in a sentence of tokens ``toks``.

    ``asked``: the question's stems with their weights (rarity, summing to 1); ``sides``: for
    each of those stems, -1 if it stands before the wh-word in the question, +1 after;
    ``head``: the question's head noun stem; ``sentence``: the features of the span's sentence
    as an answer to the whole question (shared by all its spans); ``rarity``: each stem's
    rarity among the passages (0..1, 1 for the rarest: a topic's name is everywhere).
    """
    words = toks[span.first: span.last + 1]
    stems = [stem(t.low) for t in toks]
    inside = set(stems[span.first: span.last + 1])
    look = shape(words)
    n = sum(1 for t in words if t.is_word)
    size = str(n) if n < 5 else "5+"
    out: dict[str, float] = {f"{kind}|shape={look}": 1.0, f"{kind}|len={size}": 1.0,
                             f"shape={look}": 1.0, f"len={size}": 1.0}
    before, after = _neighbour(toks, span.first - 1), _neighbour(toks, span.last + 1)
    out[f"{kind}|prev={before}"] = 1.0
    out[f"{kind}|next={after}"] = 1.0
    out[f"prev={before}"] = 1.0
    out[f"next={after}"] = 1.0
    out[f"{kind}|prev2={_neighbour(toks, span.first - 2)}|prev={before}"] = 1.0
    out[f"{kind}|first={_neighbour(toks, span.first)}|last={_neighbour(toks, span.last)}"] = 1.0
    if head:
        out[f"head={head}|shape={look}"] = 1.0
    for name, k in (("prev", span.first - 1), ("next", span.last + 1),
                    ("prev2", span.first - 2), ("next2", span.last + 2)):
        if 0 <= k < len(toks) and stems[k] in asked:
            out[f"{name}_asked"] = 1.0
            out[f"{kind}|{name}_asked"] = 1.0
    # an asked word with the word between it and the span: "led by SPAN" for "Who led ...?",
    # "debut in SPAN" for "Where did he debut?". They weigh nothing in the shipped weights:
    # +0.5 F1 in 5-fold CV on 2,200 training questions, but the folds split questions, not
    # articles (which flatters any feature), and held-out the answerer trained with them lost.
    for asked_side, other in (("prev2_asked", f"prev={before}"), ("next2_asked", f"next={after}"),
                              ("prev_asked", f"next={after}"), ("next_asked", f"prev={before}")):
        if asked_side in out:
            out[f"{kind}|{asked_side}|{other}"] = 1.0
    repeated = sum(w for s, w in asked.items() if s in inside)
    content = [stems[k] for k in range(span.first, span.last + 1)
               if toks[k].is_word and toks[k].low not in _FUNCTION]
    shared_words = sum(1 for c in content if c in asked) / (len(content) or 1)
    out["repeats_share"] = shared_words
    out[f"{kind}|repeats_share"] = shared_words
    if shared_words:
        out["repeats_any"] = 1.0
    out["rarity"] = sum(rarity.get(c, 1.0) for c in content) / (len(content) or 1)
    out["repeats_question"] = repeated
    out[f"{kind}|repeats_question"] = repeated
    if head and head in inside:
        out["holds_head_noun"] = 1.0
    out.update(_closeness(stems, span, asked, sides, head))
    out["commas"] = float(sum(1 for t in words if t.text == ","))
    out.update(sentence)
    return out


def _closeness(stems: list[str], span: Span, asked: dict[str, float], sides: dict[str, int],
               head: str) -> dict[str, float]:
    """How many of the question's words stand near the span (windows on each side), how far
    the nearest is, and whether they stand on the side of the span the question puts them."""
    out: dict[str, float] = {}
    for width in (3, 6, 12):
        left = set(stems[max(0, span.first - width): span.first])
        right = set(stems[span.last + 1: span.last + 1 + width])
        out[f"near_left_{width}"] = sum(w for s, w in asked.items() if s in left)
        out[f"near_right_{width}"] = sum(w for s, w in asked.items() if s in right)
    where = [k for k, s in enumerate(stems) if s in asked and not span.first <= k <= span.last]
    if where:
        gap = min(span.first - k if k < span.first else k - span.last for k in where)
        out["log_distance"] = math.log(gap)
        out[f"distance={min(gap, 8)}"] = 1.0
        agree = sum(asked[stems[k]] for k in where
                    if sides.get(stems[k], 0) == (1 if k > span.last else -1))
        out["side_agrees"] = agree
    else:
        out["distance=none"] = 1.0
    if head:
        close = stems[max(0, span.first - 2): span.last + 3]
        out["head_noun_beside"] = float(head in close)
    return out


def question_sides(question: str, asked: dict[str, float]) -> dict[str, int]:
    """For each asked stem: -1 if it stands before the wh-word in the question, +1 after."""
    toks = tokens(question)
    wh = next((k for k, t in enumerate(toks)
               if t.low in ("who", "whom", "whose", "what", "when", "where", "which", "how")),
              0)
    return {stem(t.low): (-1 if k < wh else 1) for k, t in enumerate(toks)
            if stem(t.low) in asked}
