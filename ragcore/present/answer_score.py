"""The extractive answer's score as people see it: kept out of the answer, stated under Advanced.

The extractive answerer states on its label line how sure it is that the passages answer the
question (" [score 0.82]", ``ragcore.llms.extractive_answer``). The figure is for people tuning
the answerer, not for readers of the answer: the app shows the answer without it (``shown_stream``
while it streams, ``without_score`` once it is whole, in saved chats and exports too) and states
it under Advanced in words (``score_sentence``); the CLI prints that sentence on a line of its
own after the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from ..llms import extractive_answer
from ..llms.extractive_answer import LABEL, answer_score, without_score

__all__ = ["TRACE_KEY", "THRESHOLD_KEY", "answer_score", "not_found_threshold", "ranked_with",
           "score_note", "score_sentence", "shown_stream", "split_score", "without_score"]

_SCORE_START = " [score "
# Where a saved chat turn keeps the score its answerer stated (its text is kept without it).
TRACE_KEY = "answer_score"
THRESHOLD_KEY = "not_found_under"  # and the threshold its answerer says "not found" under


def split_score(text: str) -> tuple[str, float | None]:
    """``text`` as shown (its score left out) and the score it stated (None if none)."""
    return without_score(text), answer_score(text)


def shown_stream(chunks: Iterable[str]) -> Iterator[str]:
    """Streamed answer text with the " [score S]" of the label line left out.

    The first chunks are held back only while they could still be the label line before its
    score has ended (the label is streamed word by word); any other text passes straight on.
    """
    held: str | None = ""
    for chunk in chunks:
        if held is None:
            yield chunk
            continue
        held += chunk
        if not _undecided(held):
            yield without_score(held)
            held = None
    if held:
        yield without_score(held)


def _undecided(held: str) -> bool:
    """True while ``held`` may still grow into our label line with a score not yet closed."""
    if "\n" in held:
        return False
    if len(held) <= len(LABEL):
        return LABEL.startswith(held)
    rest = held[len(LABEL):]
    return held.startswith(LABEL) and _SCORE_START.startswith(rest[:len(_SCORE_START)]) \
        and "]" not in rest


def ranked_with(embed_model: str | None, retrieval_mode: str) -> str | None:
    """The embedding model the extractive answerer ranked with: the index's, except for a
    keyword search, which loads no model (``index.engines.llm_with_index_embedder``)."""
    return None if retrieval_mode == "keyword" else embed_model


def not_found_threshold(model: str | None = None) -> float | None:
    """The score under which the answerer says "not found" when it ranks with ``model`` (an
    embedding model's name; None: by words alone). None if the answerer states no threshold."""
    compute = getattr(extractive_answer, "not_found_threshold", None)
    if callable(compute):
        return float(compute(_Model(model) if model else None))
    value: Any = getattr(extractive_answer, "NOT_FOUND_THRESHOLD", None)
    return float(value) if isinstance(value, (int, float)) else None


@dataclass(frozen=True, slots=True)
class _Model:
    """What the answerer reads of an embedder to pick its threshold: the model's name."""

    model_name: str


def score_sentence(score: float | None, threshold: float | None = None) -> str:
    """'Answer score 0.82 — the answerer says “not found” under 0.35' ("" with no score)."""
    if score is None:
        return ""
    if threshold is None:
        return f"Answer score {score:.2f}"
    return f"Answer score {score:.2f} — the answerer says “not found” under {threshold:.2f}"


def score_note(score: float | None, model: str | None) -> str:
    """``score_sentence`` with the threshold of the answerer that ranked with ``model``."""
    return score_sentence(score, not_found_threshold(model)) if score is not None else ""
