"""Offline stand-ins for a judge: measures that need no language model, each saying what it is.

- source support (faithfulness): the citation check of ``ragcore.present.support``: the share of
  the answer's sentences that a passage supports (quoted, or close in meaning by the embedder,
  else by shared words);
- question match (relevancy): how close the answer is to the question in meaning (cosine of
  their embeddings), or without an embedder the share of the question's content words the
  answer uses;
- gold match (correctness): the expected answer found in the answer word for word scores 5,
  else 1 + 4 x the word-overlap F1 of the two (SQuAD's token F1);
- similarity (semantic similarity): the cosine of the two texts' embeddings.

Each returns (score, feedback); the feedback names the proxy and its threshold's meaning.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Sequence

import numpy as np

from ..llms.extractive.backend import NOT_FOUND, strip_labels
from ..present.support import cite
from ..search.lexical import split_sentences, terms, words
from .relevance import normalize

MIN_CLAIM_TERMS = 3  # as the citation check: shorter sentences make no claim
# accumulate's heading of each chunk's answer: "Response 2 (a.txt, b.pdf): "
_RESPONSE_HEADING = re.compile(r"(?m)^Response \d+(?: \([^)\n]*\))?: ")
_LEAD_IN = re.compile(r"(?m)^[^\n]*:[ \t]*$\n?")  # "quoted from the documents, best match first:"
_NOT_FOUND_NOTICE = NOT_FOUND.split(": ", 1)[1]  # the extractive backend's notice, unlabelled


def source_support(answer: str, contexts: Sequence[str], embedder: Any = None
                   ) -> tuple[float | None, str]:
    """The share of the answer's claims the passages support; None when it makes none."""
    answer = claim_text(answer)
    claims = [s for s in split_sentences(answer) if len(terms(s)) >= MIN_CLAIM_TERMS]
    if not claims:
        return None, "offline proxy (source support): the answer makes no claim to check"
    citations = cite(answer, list(contexts), extractive=False, embedder=embedder)
    unsupported = len(citations.unsupported)
    score = (len(claims) - unsupported) / len(claims)
    measure = citations.measure or "quoted word for word"
    note = f"offline proxy (source support, {measure}): {len(claims) - unsupported} of " \
           f"{len(claims)} answer sentences supported by a passage"
    if citations.unsupported:
        note += f"; unsupported: {citations.unsupported[0][:120]!r}"
    return score, note


def claim_text(answer: str) -> str:
    """The answer without what makes no claim: the extractive backend's label lines and
    not-found notice, accumulate's "Response 2 (a.txt): " headings, lead-in lines ending
    with a colon."""
    text = strip_labels(_RESPONSE_HEADING.sub("", strip_labels(answer)))
    return _LEAD_IN.sub("", text.replace(_NOT_FOUND_NOTICE, ""))


def similarity(embedder: Any, first: str, second: str) -> float:
    """The cosine of the embeddings of two texts."""
    vectors = np.asarray(embedder.embed_batch([first, second]), dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1)
    if not norms.all():
        return 0.0
    return float(vectors[0] @ vectors[1] / (norms[0] * norms[1]))


def question_match(query: str, answer: str, embedder: Any = None) -> tuple[float, str]:
    """How close the answer is to the question: by meaning, else by the question's words."""
    if embedder is not None:
        name = getattr(embedder, "model_name", "") or "the embedder"
        score = similarity(embedder, query, answer)
        return score, f"offline proxy (question match): cosine {score:.2f} between the " \
                      f"question and the answer by {name}"
    wanted = set(terms(query))
    used = wanted & set(terms(answer))
    score = len(used) / len(wanted) if wanted else 0.0
    return score, f"offline proxy (question match): the answer uses {len(used)} of the " \
                  f"question's {len(wanted)} content words"


def token_f1(answer: str, reference: str) -> float:
    """SQuAD's token F1 between two texts (lower-cased words)."""
    got = Counter(w.lower() for w in words(answer))
    want = Counter(w.lower() for w in words(reference))
    common = sum((got & want).values())
    if not common:
        return 0.0
    precision, recall = common / sum(got.values()), common / sum(want.values())
    return 2 * precision * recall / (precision + recall)


def gold_match(answer: str, reference: str) -> tuple[float, str]:
    """5 when the expected answer is in the answer word for word, else 1 + 4 x token F1."""
    if normalize(reference) and normalize(reference) in normalize(answer):
        return 5.0, "offline proxy (gold match): the expected answer is in the answer word " \
                    "for word"
    f1 = token_f1(answer, reference)
    return 1.0 + 4.0 * f1, f"offline proxy (gold match): word overlap F1 {f1:.2f} with the " \
                           "expected answer (5 = found word for word)"
