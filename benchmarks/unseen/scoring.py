"""How a person reads a reply the app shows: one outcome per reply, from the text alone.

    refused        the first sentence says the documents don't say it ("The documents don't
                   say ...", "Not found in the documents."): right when the documents don't
                   answer the question, wrong otherwise
    right_vouched  every gold item is in the text (any one spelling for a factoid) and the text
                   does not open with a hedge banner
    right_hedged   the gold is there, but the text opens with a hedge ("**Not confirmed by the
                   passages:**", "**Check this answer against the sources:**", "**Not from the
                   documents:**")
    wrong_hedged   gold missing (or the documents don't answer and the reply did not refuse),
                   under a hedge banner
    wrong_vouched  the same with no banner: a wrong answer the reader is given as good

The refusal is read first: a refusal followed by "What they say nearest to it:" and a quoted
passage holding the gold is still a refusal. ``invented`` lists the cited list items that are
neither a gold item nor made of the passages' words: an item carrying a marker [n] whose
content words are not all in the passages the answer was written from.

Unlike ``benchmarks/answers/grounded_set`` (which records which gold items an answer holds and
whether its first sentence refuses), this module decides the single outcome a reader takes away.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from benchmarks.answers.grounded_set import contains, normalize, refused_first
from benchmarks.answers.squad import as_read

OUTCOMES = ("right_vouched", "right_hedged", "refused", "wrong_hedged", "wrong_vouched")
# The bold leads of the banners ragcore.present.grounded opens a doubted answer with.
HEDGES = ("Not confirmed by the passages:", "Check this answer against the sources:",
          "Not from the documents:")
_HEDGE = re.compile(r"^\s*\*\*(?:" + "|".join(re.escape(h) for h in HEDGES) + r")\*\*")
# [1], and the chat page's linked form [[1]](#anchor)
_MARKER = re.compile(r"\[\[(\d+)\]\]\([^)]*\)|\[(\d+)\]")
_ITEM = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+(.+)$", re.MULTILINE)
_WORD = re.compile(r"[^\W_]+(?:[-'.][^\W_]+)*")
_STOP = frozenset("""a an and are as at be by can for from has have in is it its of on or that
    the their they this to was were which with will not""".split())


@dataclass(frozen=True, slots=True)
class Score:
    """What a reader takes from one shown reply."""

    outcome: str
    found: tuple[bool, ...]  # per gold item (one flag for a factoid)
    invented: tuple[str, ...]  # cited list items the gold and passages don't hold

    @property
    def hedged(self) -> bool:
        return self.outcome.endswith("_hedged")


def hedged(shown: str) -> bool:
    """Whether the text opens with one of the app's hedge banners."""
    return bool(_HEDGE.match(shown))


def without_markers(text: str) -> str:
    """``text`` without its citation markers."""
    return _MARKER.sub("", text)


def gold_found(shown: str, gold: Sequence[str], kind: str) -> tuple[bool, ...]:
    """Which gold items the text says: one flag for a factoid (any spelling), else one per
    item; none when there is no gold."""
    hits = contains(without_markers(shown), gold)
    return (any(hits),) if kind == "factoid" and hits else tuple(hits)


def invented_items(shown: str, gold: Sequence[str], passages: Sequence[str]) -> tuple[str, ...]:
    """The list items carrying a marker [n] that hold no gold item, are held by none, and have
    a content word no passage has."""
    known = normalize(" ".join(passages))
    invented = []
    for match in _ITEM.finditer(shown):
        item = match.group(1)
        if not _MARKER.search(item):
            continue
        text = normalize(without_markers(item))
        if any(g in text or text in g for g in map(normalize, gold) if g):
            continue
        words = [w for w in _WORD.findall(text) if w not in _STOP and len(w) > 1]
        if any(w not in known for w in words):
            invented.append(without_markers(item).strip())
    return tuple(invented)


def holds_gold(text: str, gold: Sequence[str], kind: str) -> bool:
    """Whether ``text`` says every gold item (any one spelling for a factoid); never for a
    question with no gold."""
    return all(gold_found(text, gold, kind) or [False])


def score(shown: str, gold: Sequence[str], kind: str,
          passages: Sequence[str] = ()) -> Score:
    """The outcome of one shown reply to a question whose right answer says ``gold`` (empty:
    the documents don't answer it, so only a refusal is right)."""
    found = gold_found(as_read(shown), gold, kind)  # not the model's answer a note sets aside
    if refused_first(shown):
        outcome = "refused"
    else:
        right = bool(gold) and all(found)
        outcome = ("right_" if right else "wrong_") + ("hedged" if hedged(shown) else "vouched")
    return Score(outcome, found, invented_items(shown, gold, passages))


def is_right(outcome: str, answerable: bool) -> bool:
    """Whether the reader was told the right thing: the answer, or that the documents don't
    say when they don't."""
    return outcome.startswith("right_") if answerable else outcome == "refused"
