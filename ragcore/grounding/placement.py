"""Where a claim's numbers stand: beside the words the passage puts them with.

A small model that reads "drives out at five every day, and returns at seven" can write "She
drives out at seven every day and returns at five": every word and both numbers are in the
passage, so coverage, facts and the judge all say yes. What differs is which words each number
stands beside. Each word of the claim weighs by how close it stands to the number (1 over
the distance in content words); in the passage sentence where the claim's words stand most,
the number is displaced when the words within ``NEAR`` of another number weigh ``MARGIN``
times what those within ``NEAR`` of it weigh: "seven" beside "drives out ... every day" where
the passage puts "five" there; "Tier 2 is the information system level" where it reads "Tier
2 (mission/business process level), and Tier 3 (information system level)"; "374,176 people
were confirmed dead" where 374,176 are the injured. Another number counts only when it stands
apart from this one (not "26 February 1832", "from $20 billion to $100 billion": one
expression) and is of its kind (a year for a year, an amount for an amount). A claim whose
words near its number the passage does not use (a paraphrase) says nothing here, nor does a
passage laid out in columns (an RFC's header: the word beside a number is the next column's).

On the labelled claims (``benchmarks/grounding``) this catches 10 of the 117 contradicted or
invented ones stating numbers and takes 2 of the 83 right ones for displaced; the two
exceptions above were added after reading the false ones of both halves.

Names of one kind are read the same way (``displaced_names``): a name of several words and
another ending in the same word ("Manhattan Island", "Governors Island"; "the Verizon Ladies
First Tour", "the Dangerously in Love Tour") are two of a kind, and the claim's name is
displaced when its words stand ``MARGIN`` times nearer the other in the passages: "In November
2003, Beyoncé embarked on the Verizon Ladies First Tour in Europe" where the passage embarks on
the other tour in Europe. A short answer has no words of its own: the question's stand in
("On what island did the Dutch set up a settlement to trade furs?" answered "**Manhattan
Island**" where the passages put the Dutch fur trading settlement on Governors Island).
A name no passage states whole is left to the facts (``missing_facts``), a list item's names
to its heading. Written for those two claims of the labelled set's judge half, it marks no
other of the 440 and no right one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Sequence

from .facts import NAME_RUN, Facts, each_fact
from .text import content_stems

NEAR = 2  # content words on each side of a number that it stands with
MARGIN = 1.5  # how much nearer the claim's words must stand to another number
_GROUPED = re.compile(r"(?<=\d),(?=\d{3}\b)")  # 374,176: one number
_DECIMAL = re.compile(r"(?<=\d)\.(?=\d)")  # 4.8: one number, not two
_NUMBER = re.compile(r"^\d+(?:p\d+)?$")
_YEAR = re.compile(r"^[12]\d{3}$")
_COLUMNS = re.compile(r"\S {3,}\S")


def displaced_facts(claim_text: str, facts: Facts, sentences: Sequence[str],
                    asked: Sequence[str] = (), short: bool = False, item: bool = False
                    ) -> list[str]:
    """The claim's numbers and names (but a list item's names: an item stands under its
    heading) that ``sentences`` place beside other words."""
    numbers = displaced_numbers(claim_text, facts, sentences) if facts.numbers else []
    names = (displaced_names(claim_text, sentences, asked, short)
             if facts.names and not item else [])
    return numbers + names


def displaced_numbers(claim_text: str, facts: Facts, sentences: Sequence[str]) -> list[str]:
    """The numbers of ``facts`` (the claim's) that the one of ``sentences`` it was read from
    places beside other words than ``claim_text`` does, as the claim writes their digits."""
    claimed = _stems(claim_text)
    # In columns ("Updates: 1738      Day Software") the words beside a number are the next
    # column's: only running text places numbers.
    read = [_stems(sentence) for sentence in sentences if not _COLUMNS.search(sentence)]
    out = []
    for fact, shown in each_fact(facts):
        if not fact.numbers:
            continue
        own = frozenset(_DECIMAL.sub("p", s) for s in shown)
        weights = _closeness(claimed, own)
        stating = [stems for stems in read if own <= set(stems)]
        if not weights or not stating:
            continue
        # The sentence where the claim's words stand most is the one it was read from.
        if _elsewhere(max(stating, key=lambda stems: sum(weights.get(w, 0.0) for w in set(stems))),
                      own, weights):
            out.append(" ".join(sorted(shown)))
    return out


def _closeness(stems: Sequence[str], own: frozenset[str]) -> dict[str, float]:
    """Each word of the claim by how close it stands to the number ``own`` (1 / distance in
    content words), numbers aside."""
    at = [i for i, s in enumerate(stems) if s in own]
    weights: dict[str, float] = {}
    for j, word in enumerate(stems):
        if at and not _NUMBER.match(word) and word not in own:
            weights[word] = max(weights.get(word, 0.0), 1.0 / min(abs(i - j) for i in at))
    return weights


def _near(stems: Sequence[str], positions: Sequence[int]) -> set[str]:
    """The words within ``NEAR`` of ``positions`` in ``stems``, numbers aside."""
    return {stems[j] for i in positions
            for j in range(max(0, i - NEAR), min(len(stems), i + NEAR + 1))
            if not _NUMBER.match(stems[j])}


def _elsewhere(stems: Sequence[str], own: frozenset[str], weights: dict[str, float]) -> bool:
    """Whether the claim's words, by their closeness to its number (``own``), stand clearly
    nearer another number of ``stems`` than this one."""
    def standing(positions: Sequence[int]) -> float:
        return sum(weights.get(word, 0.0) for word in _near(stems, positions))

    at = [i for i, s in enumerate(stems) if s in own]
    here = standing(at)
    # Another place is a number standing apart (not one expression with this one) and of
    # its kind ("109 million travelers used these three airports in 2012": a year, a count).
    kind = _kind(next(iter(own)))
    there = max((standing([i]) for i, s in enumerate(stems) if _NUMBER.match(s)
                 and s not in own and _kind(s) == kind and min(abs(i - a) for a in at) > NEAR),
                default=0.0)
    return there > 0 and there >= MARGIN * here


def _kind(number: str) -> str:
    """"year" for a number that reads as one (1000-2999), else "amount"."""
    return "year" if _YEAR.match(number) else "amount"


@lru_cache(maxsize=1024)  # every claim stating numbers reads the same window sentences
def _stems(text: str) -> tuple[str, ...]:
    """``text``'s content stems where they stand, a number written with separators one stem
    (one in several words, "three hundred", stands nowhere: it is never displaced)."""
    return tuple(content_stems(_DECIMAL.sub("p", _GROUPED.sub("", text)), compounds=False))


_POSSESSIVE = re.compile(r"['\u2019]s?$")


def displaced_names(claim_text: str, sentences: Sequence[str], asked: Sequence[str] = (),
                    short: bool = False) -> list[str]:
    """The names of several words in ``claim_text`` whose words (the question's, ``asked``,
    for a ``short`` answer) stand ``MARGIN`` times nearer another name of their kind (ending
    in the same word) than near them in ``sentences`` (the passages')."""
    read = [_stems(sentence) for sentence in sentences if not _COLUMNS.search(sentence)]
    claimed = _stems(claim_text)
    named = {run for sentence in sentences for run in _name_runs(sentence)}
    out = []
    for name in sorted(_name_runs(claim_text)):
        own = frozenset(_stems(name))
        # a name the passages do not state whole is the facts' to catch, not its place
        if len(own) < 2 or not any(_at(stems, own) for stems in read):
            continue
        head = _stems(name)[-1]
        weights = ({word: 1.0 for word in asked if word not in own} if short
                   else _closeness(claimed, own))
        rivals = {rival for run in named if len(rival := frozenset(_stems(run))) >= 2
                  and not rival <= own and _stems(run)[-1] == head}
        if not weights or not rivals:
            continue
        here = max((_standing(stems, own, weights) for stems in read), default=0.0)
        there = max((_standing(stems, rival, weights) for stems in read for rival in rivals),
                    default=0.0)
        if there > 0 and there >= MARGIN * here:
            out.append(name)
    return sorted(out)


@lru_cache(maxsize=1024)  # every claim naming something reads the same window sentences
def _name_runs(text: str) -> frozenset[str]:
    """The names of several capitalised words in ``text``, a possessive's "'s" left off."""
    return frozenset(_POSSESSIVE.sub("", m.group(0)) for m in NAME_RUN.finditer(text))


def _at(stems: Sequence[str], name: frozenset[str]) -> list[int]:
    """Where the run of ``name``'s words starts in ``stems``."""
    size = len(name)
    return [start for start in range(len(stems)) if set(stems[start:start + size]) == name]


def _standing(stems: Sequence[str], name: frozenset[str], weights: dict[str, float]) -> float:
    """How much of the claim's words (``weights``) stand within ``NEAR`` of the run of
    ``name``'s words in ``stems``; 0 where the name is not there whole."""
    return max((sum(weights.get(word, 0.0)
                    for word in _near(stems, range(start, start + len(name))) - name)
                for start in _at(stems, name)), default=0.0)
