"""What to say when the documents do not hold the answer: that, plainly, and what they do say.

``not_said(question)`` turns the question into the first sentence of the reply ("How many
employees does NIST have?" -> "The documents don't say how many employees NIST has."), falling
back to quoting the question when its shape is not one of the common ones; ``not_mentioned``
says instead what the question names and the documents never write ("The documents don't
mention Queen Elizabeth."), which answers "No" to whether they mention it. ``closest_sentence``
finds the passages' sentence nearest to the question (the reader's likeliest to state an
answer, ``stating``; without it, the most shared words), quoted under it.
"""

from __future__ import annotations

import re
from typing import Callable, Sequence

from .answer_type import asks_yes_or_no, mention_topic
from .claims import sentence_spans
from .stating import stated

_WORD = re.compile(r"[^\W_]{3,}")
MAX_QUOTE_WORDS = 40
_WH = r"(?P<wh>how (?:many|much|long|often|old|far|big|large)(?: [\w-]+)??|what(?: [\w-]+)??|" \
      r"which(?: [\w-]+)??|who|whom|whose(?: [\w-]+)?|when|where|why|how)"
_INVERTED = re.compile(rf"^{_WH}\s+(?P<aux>is|are|was|were|can|could|will|would|should|has|have"
                       rf"|had|must|may|might)\s+(?P<rest>.+?)\??$", re.IGNORECASE)
_DO = re.compile(rf"^{_WH}\s+(?P<aux>does|do)\s+(?P<rest>\S.*?)\??$", re.IGNORECASE)
_DIRECT = re.compile(rf"^{_WH}\s+(?P<rest>(?!is\b|are\b|was\b|were\b|do\b|does\b|did\b).+?)\??$",
                     re.IGNORECASE)
_BE = ("is", "are", "was", "were")
_AUX = re.compile(r"did|does|do|is|are|was|were|can|could|will|would|should|has|have|had|must|"
                  r"may|might")
_MODAL = ("can", "could", "will", "would", "should", "must", "may", "might")
_PARTICIPLE = re.compile(r"^(?:\w+ed|written|made|built|given|known|held|born|done|seen|taken|"
                         r"found|run|begun|chosen|drawn|shown|sold|spent|told|won|paid|set)$")
_PROGRESSIVE = re.compile(r"^\w{2,}ing$")
_ARTICLE = re.compile(r"^(?:the|a|an|this|that|these|those|its|their|his|her|our|[A-Z][\w.-]*)\b")


def not_mentioned(question: str, absent: Sequence[str]) -> str:
    """The reply's first sentence when ``question`` names what the documents never write
    (``absent``, as the question writes them: ``located.unmentioned``): "The documents don't
    mention Queen Elizabeth." (names next to each other in the question said together), "No"
    first to a question asking whether they mention it."""
    named = _named(question, absent)
    # a topic asked about whole keeps the article the question gives it: "the moon landing"
    article = re.search(rf"\b(the|a|an)\s+{re.escape(named)}\b", question, re.IGNORECASE)
    if article and named == mention_topic(question):
        named = f"{article[1].lower()} {named}"
    said = f"the documents don't mention {named}."
    if asks_yes_or_no(question) and mention_topic(question) is not None:
        return f"**No**: {said}"
    return said[0].upper() + said[1:]


def _named(question: str, absent: Sequence[str]) -> str:
    """``absent`` in the question's order, those next to each other there joined ("Queen
    Elizabeth"), the rest joined by "or"."""
    words = question.replace("?", " ").split()
    where = {a: next((i for i, w in enumerate(words) if w.strip("`'\"(),").startswith(a)),
                     len(words)) for a in absent}
    phrases: list[list[str]] = []
    for name in sorted(absent, key=lambda a: where[a]):
        if phrases and where[phrases[-1][-1]] + 1 == where[name] < len(words):
            phrases[-1].append(name)
        else:
            phrases.append([name])
    said = [" ".join(phrase) for phrase in phrases]
    return said[0] if len(said) == 1 else f"{', '.join(said[:-1])} or {said[-1]}"


def not_said(question: str) -> str:
    """The reply's first sentence when the documents do not answer ``question``."""
    text = " ".join(question.split()).rstrip(" ?.!")
    # "On what date was X issued" -> "on what date X was issued"
    lead = _PREPOSITION.match(text)
    clause = _indirect(text[lead.end():]) if lead else _indirect(text)
    clause = f"{lead[0].lower()}{clause}" if lead and clause else clause
    if clause:
        return f"The documents don't say {clause}."
    return f"The documents don't answer this: \u201c{' '.join(question.split())}\u201d"


_PREPOSITION = re.compile(r"(?:on|in|at|for|from|to|by|with|since|until|during|of)\s+(?=(?:what|"
                         r"which|whom|how)\b)", re.IGNORECASE)


def _indirect(text: str) -> str:
    """``text`` (a question) as an indirect question, or "" when its shape is unknown."""
    match = _DO.match(text)
    if match:
        words = match["rest"].split()
        at = _verb_at(words)
        if at is None or words[at].lower() in _NEVER_VERBS:
            return ""
        verb = _third_person(words[at]) if match["aux"].lower() == "does" else words[at]
        return " ".join([match["wh"].lower(), *words[:at], verb, *words[at + 1:]])
    match = _INVERTED.match(text)
    if match:
        rest = match["rest"].split()
        aux = match["aux"].lower()
        # "how old was Julia when she died" -> "how old Julia was when she died"
        at = next((i for i, w in enumerate(rest) if i and w.lower() in _SUBORDINATORS), None)
        if at is not None and aux in _BE and _ARTICLE.match(rest[0]):
            return f"{match['wh'].lower()} {' '.join(rest[:at])} {aux} {' '.join(rest[at:])}"
        # "when was the SSDF published" -> "when the SSDF was published", "how much was X
        # offered for Y" -> "how much X was offered for Y"
        at = _passive_at(rest, match["wh"]) if aux in _BE else None
        if at is not None:
            return f"{match['wh'].lower()} {' '.join(rest[:at])} {aux} {' '.join(rest[at:])}"
        if aux in _MODAL:  # "how can I print X" -> "how to print X"; a modal's subject
            if len(rest) >= 2 and rest[0].lower() in ("i", "we", "you", "one"):  # ends anywhere
                return f"{match['wh'].lower()} to {' '.join(rest[1:])}"
            return ""
        # "what is the capital of France" -> "what the capital of France is"
        if rest and _ARTICLE.match(rest[0]):
            return f"{match['wh'].lower()} {' '.join(rest)} {match['aux'].lower()}"
        return ""
    match = _DIRECT.match(text)
    if (match and match["wh"].lower().split()[0] in ("who", "what", "which")
            and not any(_AUX.fullmatch(w) for w in match["wh"].lower().split()[1:])):
        # "what name did X use": an auxiliary after the wh-phrase inverts it (a past tense to
        # make of "use" is beyond a pattern): quoted instead
        if any(_AUX.fullmatch(w) for w in match["rest"].lower().split()[:2]):
            return ""
        return f"{match['wh'].lower()} {match['rest']}"
    return ""


# Words a verb is not, and that no verb follows in a subject ("the man in the story"): after
# "does <subject>", the verb is the first word preceded by none of these and followed by one of
# them or by nothing ("how much does a record header cost" -> "cost").
_FUNCTION = frozenset("the a an this that these those his her its their my our your of in on at "
                      "for to from by with about into over under after before than as if when "
                      "and or".split())


_SUBORDINATORS = frozenset("when while after before because if since until unless".split())
_RELATIVES = frozenset("who whom whose which that".split())
_DETERMINERS = frozenset("the a an this that these those his her its their".split())


def _passive_at(words: list[str], wh: str) -> int | None:
    """Where the participle of a passive question's verb stands ("the SSDF | published", "X |
    offered for Y"): a participle after the subject, ending the question or followed by a
    function word, and not the verb of a relative clause; None when there is none. After
    "what", "which" or "who" the subject may carry a participle of its own ("the Secretary of
    State mentioned in the speech"): only a last word is the question's ("the book | called")."""
    last_only = wh.split()[0].lower() in ("what", "which", "who", "whose")
    for at in range(len(words) - 1 if last_only else 1, len(words)):
        after = words[at + 1].lower() if at + 1 < len(words) else None
        if (at and _participle(words[at], words[at - 1]) and (after is None or after in _FUNCTION)
                and not _relative_clause(words[:at + 1])):
            return at
    return None


def _participle(word: str, before: str) -> bool:
    """Whether ``word`` is a participle: a past one ("published"), or a present one after its
    subject ("Intel | going to build", "Intel | building"), not an -ing noun after a
    determiner or a possessive ("the | meaning", "the | string")."""
    return bool(_PARTICIPLE.match(word)) or bool(
        _PROGRESSIVE.match(word) and before.lower() not in _DETERMINERS
        and not before.endswith(("'s", "\u2019s")))


def _relative_clause(words: list[str]) -> bool:
    """Whether ``words`` hold a relative clause, whose verb is not the question's: a relative
    pronoun ("the Ambassador who attended"), or a second noun phrase after a word that cannot
    lead into it ("the Speaker of the House | the President greeted")."""
    return any((word.lower() in _DETERMINERS and words[at - 1].lower() not in _FUNCTION)
               or word.lower() in _RELATIVES for at, word in enumerate(words) if at > 0)


def _verb_at(words: list[str]) -> int | None:
    for at in range(1, len(words)):
        before, word = words[at - 1].lower(), words[at].lower()
        after = words[at + 1].lower() if at + 1 < len(words) else None
        if (word in _FUNCTION or word in _PARTICLES or before in _FUNCTION
                or not word.isalpha()):
            continue
        if after is None or after in _FUNCTION or after in _PARTICLES:
            return at
    return None


# The particle of a phrasal verb, which follows the verb and is not it: "does Gregor Samsa
# wake up as" -> "Gregor Samsa wakes up as".
_PARTICLES = frozenset("up out off down away back".split())
# Words a pattern would take for the verb and never are ("does the crawler handle redirects
# itself instead of ...": not "insteads"): the question is quoted instead.
_NEVER_VERBS = frozenset("itself himself herself themselves instead also only even still "
                         "just".split())


def _third_person(verb: str) -> str:
    lower = verb.lower()
    if lower == "have":
        return "has"
    if lower.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if lower.endswith("y") and len(lower) > 1 and lower[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def closest_sentence(question: str, passages: Sequence[str]) -> str:
    """The passages' sentence nearest to ``question``, cut to ``MAX_QUOTE_WORDS``; "" when
    there is none (``closest_with_position``)."""
    best, _ = closest_with_position(question, passages)
    return best


def closest_with_position(question: str, passages: Sequence[str],
                          avoid: Callable[[str], bool] | None = None) -> tuple[str, int]:
    """The passages' sentence nearest to ``question`` and the position of the passage holding
    it (-1: none): of the sentences sharing a word (3+ letters) with it, the one the reader
    finds likeliest to state the answer (``stating``), else the one sharing the most words,
    the earliest on ties. A sentence ``avoid`` is true of (one holding an answer the reply does
    not show) is passed over."""
    asked = {w.casefold() for w in _WORD.findall(question)}
    for item in stated(question, passages):
        sentence = " ".join(passages[item.passage][slice(*item.span)].split())
        # a sentence sharing no word with the question ("```console") is near in no way a
        # person sees
        if (avoid is None or not avoid(sentence)) and asked & {
                w.casefold() for w in _WORD.findall(sentence)}:
            return _cut(sentence), item.passage
    best, best_shared, where = "", 0, -1
    for position, passage in enumerate(passages):
        # sentences as the verdict reads them: "Neville St. Clair" is not cut at "St."
        for sentence in (passage[a:b] for a, b in sentence_spans(passage, wrapped=True)):
            shared = len(asked & {w.casefold() for w in _WORD.findall(sentence)})
            if shared > best_shared and (avoid is None or not avoid(" ".join(sentence.split()))):
                best, best_shared, where = " ".join(sentence.split()), shared, position
    return _cut(best), where


def _cut(sentence: str) -> str:
    words = sentence.split()
    if len(words) > MAX_QUOTE_WORDS:
        return " ".join(words[:MAX_QUOTE_WORDS]) + " \u2026"
    return sentence
