"""Sentences read with a neighbour: the budgeted reader's (``optimizer``) context rules.

A kept sentence that points back ("This principle, known as shifting left, ...") is read with
the one before it, and the next sentence of a kept one when it points back to it, each up to
``REFERRING_TOKENS``, also across a chunk border when both passages were retrieved
(``read_across``). For a why or how question, the sentence after each of its ``EXPLAINED``
best-ranked sentences is read too: the sentence that restates the question is followed by its
reason ("... we need no mutex around changes to shared data ... / There is no preemptive
multitasking, so ..."); on the unseen set's tune half the evidence of 8 of 9 answerable why and
how questions was read instead of 6, for 21 more tokens a question on average.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..grounding.text import refers_back
from ..tokens import count_tokens
from ..types import ScoredNode

EXPLAINED = 2  # a why's or how's best sentences read with the one after (``explained``)
REFERRING_TOKENS = 80  # a sentence read with its neighbour that it refers to, or refers back to


def referring(parts: list[str], kept: list[int]) -> set[int]:
    """The sentences a kept one is read with because one refers to the other: the next one
    when it opens by pointing back ("This principle, known as shifting left, ..."), the one
    before a kept sentence that does so, each up to ``REFERRING_TOKENS``."""
    more: set[int] = set()
    for k in kept:
        for j, pointer in ((k + 1, k + 1), (k - 1, k)):
            if (0 <= j < len(parts) and j not in kept and refers_back(parts[pointer])
                    and count_tokens(parts[j]) <= REFERRING_TOKENS):
                more.add(j)
    return more


def explained(kept: dict[int, set[int]], split: list[list[str]], flat: list[tuple[int, int]],
               ranking: np.ndarray) -> None:
    """For a why or how question, the sentence after each of the ``EXPLAINED`` best-ranked
    ones, up to ``REFERRING_TOKENS``: the sentence that restates the question is followed by
    its reason ("... we need no mutex around changes to shared data ... / There is no
    preemptive multitasking, so ...")."""
    for r in np.argsort(-ranking, kind="stable")[:EXPLAINED]:
        i, j = flat[r]
        if j in kept.get(i, ()) and j + 1 < len(split[i]) \
                and count_tokens(split[i][j + 1]) <= REFERRING_TOKENS:
            kept[i].add(j + 1)


def following(nodes: Sequence[ScoredNode]) -> dict[int, int]:
    """Passage index -> the index of the passage that continues it in its document."""
    where = {scored.node.node_id: i for i, scored in enumerate(nodes)}
    return {where[scored.node.prev_id]: i for i, scored in enumerate(nodes)
            if scored.node.prev_id in where}


def read_across(kept: dict[int, set[int]], split: list[list[str]], continues: dict[int, int]
                ) -> list[tuple[int, int]]:
    """``referring`` across a chunk border: a passage's last sentence kept, and the first
    sentence of the passage after it (past what the two share) points back to it ("the
    earlier in the SDLC that security is addressed, the less effort ... / This principle,
    known as shifting left, ..."), or the other way round: each is read with the other.
    Returns the pairs of passages (before, after) so joined, for ``read_together``."""
    joined: list[tuple[int, int]] = []
    for i, after in continues.items():
        shared = {" ".join(p.split()) for p in split[i]}
        first = next((j for j, p in enumerate(split[after]) if " ".join(p.split()) not in shared),
                     None)
        last = len(split[i]) - 1
        if first is None or last < 0 or not refers_back(split[after][first]):
            continue
        if last in kept.get(i, ()) and count_tokens(split[after][first]) <= REFERRING_TOKENS:
            kept.setdefault(after, set()).add(first)
            joined.append((i, after))
        elif first in kept.get(after, ()) and count_tokens(split[i][last]) <= REFERRING_TOKENS:
            kept.setdefault(i, set()).add(last)
            joined.append((i, after))
    return joined


def read_together(split: list[list[str]], kept: dict[int, set[int]],
                  joined: list[tuple[int, int]]) -> list[tuple[int, list[str], list[int]]]:
    """Each passage's sentences and the kept ones, best first, with each pair ``read_across``
    joined made one passage in the document's order (the sentences the two share once), where
    the better ranked of the two stood: ``(passage whose node it keeps, sentences, kept)``. A
    sentence pointing back ("It won't look like much ... This is where Intel ... is going to
    build its ... mega site") is then read right after the one it points to ("If you travel
    20 miles east of Columbus, Ohio, ..."), by the model and by the check's windows, not a
    few passages away, where neither connects them."""
    parts = {i: (list(p), set(kept.get(i, ()))) for i, p in enumerate(split)}
    order = list(range(len(split)))
    group = {i: i for i in order}  # passage -> the passage standing for its joined group
    for before, after in joined:
        head_at, tail_at = group[before], group[after]
        if head_at == tail_at:
            continue
        (head, head_kept), (tail, tail_kept) = parts.pop(head_at), parts.pop(tail_at)
        where = {" ".join(p.split()): k for k, p in enumerate(head)}
        sentences = list(head)
        for k, sentence in enumerate(tail):
            at = where.get(" ".join(sentence.split()))
            if at is None:
                if sentences and not sentences[-1][-1:].isspace():
                    sentences[-1] += " "  # the border between the two: a space at least
                at = len(sentences)
                sentences.append(sentence)
            if k in tail_kept:
                head_kept.add(at)
        best = min(head_at, tail_at, key=order.index)
        parts[best] = (sentences, head_kept)
        order = [k for k in order if k not in (head_at, tail_at) or k == best]
        group.update({k: best for k, g in group.items() if g in (head_at, tail_at)})
    return [(i, *parts[i][:1], sorted(parts[i][1])) for i in order]
