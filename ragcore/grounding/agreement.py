"""A second reader's answer: the extractive answerer's phrase for the same question, as a check.

Similarity and shared facts cannot tell "Dvořák conducted" from "Ōshima conducted" when both
names stand in the passage. A reader that never saw the answer can: the extractive answerer's
span model picks the phrase of the passages that answers the question (the same one the offline
backend answers with). A claim that holds that phrase agrees with it; a short answer or a first
sentence that does not, while the span model is sure the passages answer, disagrees. Cost: one
pass of the span model over the passages (~0.2-0.4 s on two cores), none when the not-found gate
read the same passages for the same question (``extractive.answer.assessed`` remembers it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..llms.extractive.answer import assessed
from ..llms.extractive.text import candidates
from .text import content_stems

SURE = 0.5  # the span model's chance that the passages answer, from which its phrase counts


@dataclass(frozen=True, slots=True)
class Expected:
    """The phrase the extractive reader answers with (None: no phrase), and how sure it is that
    the passages answer at all."""

    phrase: str | None
    answered: float

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(content_stems(self.phrase or ""))


NOTHING = Expected(None, 0.0)


def expected_phrase(passages: Sequence[str], question: str, *, embedder: Any = None) -> Expected:
    """What the extractive reader answers ``question`` with from ``passages``."""
    cands = candidates("\n\n".join(passages))
    if not cands or not question.strip():
        return NOTHING
    judged = assessed(cands, question, embedder)  # the not-found gate read them so a moment ago
    phrase = judged.phrase.text if judged.phrase is not None else None
    return Expected(phrase, float(judged.answered))


def agreement(claim_stems: Sequence[str], expected: Expected) -> float:
    """+1 when the claim holds the reader's phrase (most of its words), -1 when the reader is
    sure of a phrase the claim lacks, 0 when the reader has none."""
    wanted = expected.stems
    if not wanted or expected.answered < SURE:
        return 0.0
    share = len(wanted & set(claim_stems)) / len(wanted)
    return 1.0 if share >= 0.5 else -1.0
