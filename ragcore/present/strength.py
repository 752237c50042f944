"""How close the search found a passage to the question, in words: "search: close to your
question", "search: somewhat close to your question", "search: far from your question".

The word says what the search's score measures, the passage's likeness to the question's words
and meaning, and nothing of whether the passage supports the answer: a bibliography entry that
repeats the question's words is close to it, while the passage stating the answer in other
words may be far. Whether a passage states the answer is the answer check's
(``SourceUse.note``: "states this", "quoted in the answer"), which is what a source's title says
without Advanced; the word and the score are shown under Advanced only.

Scores mean different things per retrieval mode (``sources.relevance_floor``), so the word is
judged against the same floor that decides which sources are shown: below it a passage is far;
a cosine of at least ``STRONG_SIMILARITY`` (on-topic best passages scored 0.42-0.71 with
all-MiniLM-L6-v2, unrelated ones up to 0.33) or, for keyword and fused scores, ``STRONG_SHARE``
of the best score is close.
"""

from __future__ import annotations

from typing import Sequence

from .sources import SourceListing, relevance_floor

STRONG_SIMILARITY = 0.5
STRONG_SHARE = 0.85
CONTEXT = "added as context"
CLOSE = "search: close to your question"
SOMEWHAT = "search: somewhat close to your question"
FAR = "search: far from your question"


def match_strength(score: float | None, scores: Sequence[float | None], retrieval_mode: str) -> str:
    """How close the search found ``score`` among the ``scores`` of one search by
    ``retrieval_mode``, in words."""
    if score is None:
        return CONTEXT
    floor = relevance_floor(scores, retrieval_mode)
    if retrieval_mode in ("similarity", "mmr"):
        strong = max(STRONG_SIMILARITY, floor)
    else:
        strong = STRONG_SHARE * max((s for s in scores if s is not None), default=0.0)
    if score >= strong:
        return CLOSE
    return SOMEWHAT if score >= floor else FAR


def listing_strengths(listing: SourceListing, retrieval_mode: str) -> dict[int, str]:
    """The search's word for every listed source, by its number."""
    listed = (*listing.shown, *listing.hidden)
    scores = [s.scored.score for s in listed]
    return {s.number: match_strength(s.scored.score, scores, retrieval_mode) for s in listed}
