"""The extractive answer's score as people see it: never in the answer, stated under Advanced.

The extractive answerer states how sure it is that the passages answer the question in the
turn's trace notes (``trace.notes["answer_score"]``, ``ragcore.llms.extractive.answer``), never
in the answer's text. The figure is for people tuning the answerer, not for readers of the
answer: the app states it under Advanced in words (``score_note``), and a saved chat turn keeps
it in its trace (``TRACE_KEY``, beside the threshold: ``THRESHOLD_KEY``); the CLI prints that
sentence on a line of its own after the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..llms.extractive import answer as extractive_answer
from ..llms.extractive.answer import SCORE_NOTE, THRESHOLD_NOTE
from ..trace import Trace

__all__ = ["TRACE_KEY", "THRESHOLD_KEY", "not_found_threshold", "ranked_with", "score_note",
           "score_sentence", "stated_score"]

# Where a saved chat turn keeps the score its answerer stated (as the live trace notes do) and
# the threshold its answerer says "not found" under (``workspace.conversation`` records them).
TRACE_KEY, THRESHOLD_KEY = SCORE_NOTE, THRESHOLD_NOTE


def stated_score(trace: Trace | None) -> float | None:
    """The score the answerer stated in ``trace`` (the answer's), None if it stated none."""
    score = trace.notes.get(SCORE_NOTE) if trace is not None else None
    return None if score is None else float(score)


def ranked_with(embed_model: str | None, retrieval_mode: str) -> str | None:
    """The embedding model the extractive answerer ranked with: the index's, except for a
    keyword search, which loads no model (``engines.from_index.llm_with_index_embedder``)."""
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
