"""Which passage sentence states the answer to a question: read by the trained reader.

The word counts of ``located`` (the share of the question's words a sentence repeats) cannot
tell "The client waits a further interval called the grace period, 45s by default." (which
states the Chubby client's grace period without naming the client) from a sentence that repeats
the question and answers nothing. The reader (``ragcore.reading``) reads the question and the
sentence together, with the sentence before it (where "the client" was named), and gives the
chance that the sentence states the answer. Thresholds, chosen on the packaged model's
recorded answers to a SQuAD training article (``benchmarks/reader/README.md``):

    STATES    a sentence holding a short answer at this chance states it: the answer is
              located there (the word rule's ``LOCATED_SHARE`` is its other way in), and one
              the claim features vouch for is kept (the word rule's ``VETO_SHARE``)
    SURE      the best sentence at least this, and the model's answer not in it (or a
              refusal): that sentence is shown as what the documents say, not the model's
              answer nor "The documents don't say"

Tried on the same rows and not kept (``benchmarks/reader/README.md``): refusing a one-fact
answer when no sentence reaches a chance (the documents answer nothing), vetoing a sentence the
word shares locate when the reader doubts it, and locating an answer in the sentence the reader
finds likeliest whatever its chance: each showed as many more unanswerable questions answered,
or right answers refused, as it gained. Without the weights (a checkout that lacks them) every
score is None and the word rules decide alone, as they did before the reader.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from .claims import Span, sentence_spans

STATES = 0.5
SURE = 0.9


@dataclass(frozen=True, slots=True)
class Stated:
    """One passage sentence and the reader's chance that it states the answer."""

    passage: int
    span: Span
    chance: float


def reader_available() -> bool:
    """Whether this process has the reader's weights."""
    from ..reading.model import shared_reader

    return shared_reader().available


def stated(question: str, passages: Sequence[str]) -> list[Stated]:
    """Every prose sentence of ``passages`` (``reading.text.prose``: the reader was trained on
    nothing else) with the reader's chance that it states the answer to ``question``, most
    likely first; [] without the reader or a question."""
    if not question.strip() or not passages or not reader_available():
        return []
    return list(_stated(question, tuple(passages)))


@lru_cache(maxsize=64)  # the verdict, the veto and the refusal's quote read the same sentences
def _stated(question: str, passages: tuple[str, ...]) -> tuple[Stated, ...]:
    from ..reading.model import shared_reader
    from ..reading.text import prose, reader_text

    where, texts = [], []
    for position, passage in enumerate(passages):
        spans = sentence_spans(passage, wrapped=True)
        for i, span in enumerate(spans):
            if not prose(passage[slice(*span)]):  # a line of code: the word rules' alone
                continue
            before = passage[slice(*spans[i - 1])] if i else ""
            where.append((position, span))
            texts.append(reader_text(passage[slice(*span)], "", before))
    chances = shared_reader().score(question, texts)
    out = [Stated(p, s, c) for (p, s), c in zip(where, chances)]
    return tuple(sorted(out, key=lambda s: (-s.chance, s.passage, s.span)))
