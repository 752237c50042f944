"""The answerer's runners-up: the few phrases of the passages most likely to answer a question.

``model.assess`` picks one phrase; this module keeps the best few, each with the sentence it
stands in, for a language model to choose among (``synthesis.span_choice``): the model then
chooses what the passages say instead of writing it. The phrases are ranked as ``assess`` ranks
them (the span model, and with the packaged embedding model its typed second stage); the phrase
``assess`` would answer with comes first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from .answer import strip_labels
from .model import best_phrase, linear, load_weights, phrase_texts, read, typed_rows, variant
from .question import without_source_words
from .rank import Scorer, rank
from .text import candidates

# Phrases longer than this many characters are sentences, not short answers: left out.
MAX_PHRASE_CHARS = 80
# What the sentence reader (``retrieval.optimizer.GAP``) joins the sentences it keeps with: one
# "sentence" here may be several, and a phrase's sentence is its own one.
GAP = " \u2026 "


@dataclass(frozen=True, slots=True)
class CandidatePhrase:
    """A phrase of the passages, word for word, and the sentence it stands in."""

    text: str
    sentence: str
    score: float  # the span model's score (a logit: comparable within one question)


def candidate_phrases(passages: Sequence[str], question: str, *, embedder: Any = None,
                      limit: int = 6) -> list[CandidatePhrase]:
    """The ``limit`` best distinct phrases of ``passages`` for ``question``, best first; none
    when the question asks for no phrase (a "why" or "how" question) or nothing is quotable."""
    cands = candidates(strip_labels("\n\n".join(passages)))
    if not cands:
        return []
    scorer = Scorer(cands, embedder)
    question = without_source_words(question)
    reading = read(scorer, question, rank(scorer, question, limit=3, floor=False).scores)
    rows, texts = reading.rows, phrase_texts(reading, cands)
    weights, which = load_weights(), variant(embedder)
    span_weights = weights["span"][which]
    if rows and which in weights.get("span_typed", {}):
        kept, rows = typed_rows(rows, texts, span_weights, question, reading.kind or "none",
                                embedder.embed_batch)
        texts, span_weights = [texts[i] for i in kept], weights["span_typed"][which]
    won = best_phrase(rows, span_weights)
    if won is None:
        return []
    scores = [linear(span_weights, f) for *_, f in rows]
    order = sorted(range(len(rows)), key=lambda i: (i != won[0], -scores[i], i))
    chosen: list[CandidatePhrase] = []
    for i in order:
        text, sentence = texts[i], _own_part(cands[reading.order[rows[i][0]]].text, texts[i])
        if len(text) > MAX_PHRASE_CHARS or _repeats(text, sentence, chosen):
            continue
        chosen.append(CandidatePhrase(text, sentence, scores[i]))
        if len(chosen) == limit:
            break
    return chosen


def _own_part(sentence: str, text: str) -> str:
    """The sentence of ``sentence`` (several joined by ``GAP``) that holds ``text``."""
    return next((part for part in sentence.split(GAP) if text in part), sentence)


def _repeats(text: str, sentence: str, chosen: Sequence[CandidatePhrase]) -> bool:
    """Whether ``text`` is, or sits inside or around, a phrase already chosen from the same
    sentence ("Eiffel" after "Gustave Eiffel"): the choice offered is between answers, not
    between cuts of one answer."""
    low = text.casefold()
    return any(low == c.text.casefold() or (c.sentence == sentence and (
        low in c.text.casefold() or c.text.casefold() in low)) for c in chosen)
