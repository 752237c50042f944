"""How well a passage matches the question, in words: "strong match", "good match", "weak match".

People are shown the word; the score itself only under Advanced. Scores mean different things per
retrieval mode (``sources.relevance_floor``), so the word is judged against the same floor that
decides which sources are shown: below it a match is weak; a cosine of at least
``STRONG_SIMILARITY`` (on-topic best passages scored 0.42-0.71 with all-MiniLM-L6-v2, unrelated
ones up to 0.33) or, for keyword and fused scores, ``STRONG_SHARE`` of the best score is strong.
"""

from __future__ import annotations

from typing import Sequence

from .sources import SourceListing, relevance_floor

STRONG_SIMILARITY = 0.5
STRONG_SHARE = 0.85
CONTEXT = "added as context"


def match_strength(score: float | None, scores: Sequence[float | None], retrieval_mode: str) -> str:
    """The strength word of ``score`` among the ``scores`` of one search by ``retrieval_mode``."""
    if score is None:
        return CONTEXT
    floor = relevance_floor(scores, retrieval_mode)
    if retrieval_mode in ("similarity", "mmr"):
        strong = max(STRONG_SIMILARITY, floor)
    else:
        strong = STRONG_SHARE * max((s for s in scores if s is not None), default=0.0)
    if score >= strong:
        return "strong match"
    return "good match" if score >= floor else "weak match"


def listing_strengths(listing: SourceListing, retrieval_mode: str) -> dict[int, str]:
    """The strength word of every listed source, by its number."""
    listed = (*listing.shown, *listing.hidden)
    scores = [s.scored.score for s in listed]
    return {s.number: match_strength(s.scored.score, scores, retrieval_mode) for s in listed}
