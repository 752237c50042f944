"""Which sentences of the retrieved passages an answer used, for every kind of answer.

An extractive answer only quotes, so a passage is cited exactly where the answer quotes it
(``quotes.py``) and nowhere else; its label line is no quote, and the short answer on it is
found inside the quoted sentence it came from (``SourceUse.answer_spans``, shown emphasised). A
generated answer is split into sentences; a sentence quoted word for word is cited like an
extractive quote, and every other one is compared with each sentence of every passage: by the
cosine of their embeddings when an embedder is given (the index's own model), else by a strict
lexical measure. The passage sentences that match an answer sentence best, above a stated
threshold, support it; an answer sentence with no such match is reported as unsupported, and a
passage supporting nothing says it was "found by the search, not used". Rendering is
``citations.py``; which sources are shown is ``sources.py``. A supporting passage's note says
"states this" only where the shown answer carries its marker (``markers.agreeing_use``).

Given the question, a generated answer's support is ``ragcore.grounding``'s verdict instead:
each claim (sentence, list line, list item) is supported only where a passage states its facts
and words (the index's model adds meaning); the passages supporting a claim are marked and say
``SUPPORTS``, and only they. An unsupported answer (``Verdict.label``) cites nothing: the
passage nearest to the question says ``NEAREST``. Markers written by the model ("[2]", "Source
1") are taken out first: ragcore places its own (``grounded.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from ..search.lexical import split_sentences, terms
from ..llms.extractive.backend import ExtractiveLLM, strip_labels
from ..llms.extractive.answer import short_answer_of
from ..grounding import (
    UNSUPPORTED,
    QuestionKind,
    Verdict,
    asks_one_fact,
    check_answer,
    closest_with_position,
    question_kind,
)
from ..grounding.claims import sentence_spans as verdict_sentences
from ..grounding.facts import missing_facts
from ..grounding.holding import holds_answer
from ..grounding.text import content_stems, without_markers
from ..grounding.verdict import ClaimCheck
from .quotes import (
    Span,
    answer_spans,
    merge_spans,
    quoted_spans,
    quotes_in,
    sentence_spans,
    words_of,
)

# What each source's note says, in a person's words: what the source did for this answer.
QUOTED = "quoted in the answer"
NOT_QUOTED = "found by the search, not quoted"
SUPPORTS = "states this"  # only where the shown answer carries the source's marker
NO_SUPPORT = "found by the search, not used"
NEAREST = "nearest to your question"
TO_CHECK = "check the answer against it"  # under an answer the check could not decide
# Before an answer sentence no passage states (the sentence follows, quoted).
NOT_STATED = "No passage states"

# all-MiniLM-L6-v2 cosine between an answer sentence and the source sentence it restates.
# Measured against every sentence of PEP 8, RFC 2616 and the 2022 State of the Union speech
# (14 restatements, 12 invented claims; tests/test_citations_real.py keeps some): restatements in
# other words scored 0.77-0.97 with their source sentence; invented claims scored at most 0.71
# against their nearest sentence, unless they contradict one sentence on the same point (0.72-0.83:
# "tabs are preferred" vs "tabs should be used solely to remain consistent"). Similarity cannot
# tell agreement from contradiction: it finds the sentence a claim is about, which is then shown.
EMBEDDING_SUPPORT = 0.75
# Lexical support: the mean of the share of the answer sentence's content words found in the
# source sentence and the share of its adjacent content-word pairs found there. On the same
# examples 10 of 14 restatements scored 0.52-0.82 (the other four used other words: 0.31-0.45);
# 11 of 12 invented claims scored at most 0.45 (the twelfth contradicts a sentence in its own
# words: 0.55). Strict on purpose: it runs only without an embedder, and missing support is more
# honest than support that is not there.
LEXICAL_SUPPORT = 0.5
# Only the source sentences within this margin of an answer sentence's best match support it: a
# sentence resembling the claim less than another one does was not what the claim restated.
# (Overlapping chunks repeat sentences; the copies tie.)
SUPPORT_MARGIN = 0.02
# Answer sentences with fewer content words ("Sure!", "In short:") make no claim to check.
MIN_CLAIM_TERMS = 3

# (answer sentences, source sentences) -> similarity matrix, one row per answer sentence
Similarity = Callable[[Sequence[str], Sequence[str]], np.ndarray]


@dataclass(frozen=True, slots=True)
class SourceUse:
    """What an answer used of one passage: character spans of its text, a note saying so, and
    where in those spans the answer's short answer stands (an extractive answer's bold phrase)."""

    spans: tuple[Span, ...]
    note: str = ""
    answer_spans: tuple[Span, ...] = ()

    @property
    def used(self) -> bool:
        return bool(self.spans)


@dataclass(frozen=True, slots=True)
class Citations:
    """Per passage, what the answer used; the answer sentences no passage supports."""

    sources: tuple[SourceUse, ...]
    unsupported: tuple[str, ...] = ()
    measure: str = ""  # how support was judged, in words ("" for quotes only)
    verdict: Verdict | None = None  # the grounding verdict (generated answers, question known)


def cite(
    answer: str, passages: Sequence[str], *, extractive: bool, embedder: Any = None,
    question: str = "", judge: Any = None, subjects: Sequence[str] = (),
    held: Callable[[str], bool] | None = None,
) -> Citations:
    """What ``answer`` used of each of ``passages`` (texts, in the order the sources are shown).

    ``extractive`` answers count quotes only. For generated answers ``embedder`` (anything with
    ``embed_batch``) measures support by meaning; without one a strict lexical measure is used.
    """
    quoting = strip_labels(answer)  # an extractive answer's label line is no quote
    quoted = [quoted_spans(passage, quoting, whole=extractive) for passage in passages]
    if extractive:
        short = short_answer_of(answer)
        return Citations(tuple(
            SourceUse(tuple(q), QUOTED if q else NOT_QUOTED, tuple(answer_spans(p, short, q)))
            for p, q in zip(passages, quoted)))
    if question.strip() and passages:  # no passages (a chat without search): nothing to check
        return grounded_citations(answer, passages, question=question, embedder=embedder,
                                  judge=judge, subjects=subjects, held=held)
    claims = [s for s in split_sentences(answer) if len(terms(s)) >= MIN_CLAIM_TERMS]
    if not claims:  # no answer text (no_text mode) or nothing checkable: nothing to support
        return Citations(tuple(SourceUse(tuple(q)) for q in quoted))
    open_claims = [c for c in claims if not _is_quote(c, passages, quoted)]
    if embedder is not None:
        similarity, threshold = embedding_similarity(embedder), EMBEDDING_SUPPORT
        name = getattr(embedder, "model_name", "") or "the index's embedding model"
        measure = f"similarity of meaning by {name}, at least {threshold}"
    else:
        similarity, threshold = lexical_similarity, LEXICAL_SUPPORT
        measure = f"shared words and word pairs, at least {threshold}"
    supported, unsupported = supporting_spans(
        open_claims, passages, similarity=similarity, threshold=threshold
    )
    uses = tuple(
        SourceUse(tuple(merge_spans(q + s)), SUPPORTS if s else QUOTED if q else NO_SUPPORT)
        for q, s in zip(quoted, supported)
    )
    return Citations(uses, tuple(unsupported), measure)


def grounded_citations(answer: str, passages: Sequence[str], *, question: str,
                       embedder: Any = None, judge: Any = None,
                       subjects: Sequence[str] = (),
                       held: Callable[[str], bool] | None = None) -> Citations:
    """What ``answer`` (a generated answer to ``question``) used of each passage, by the
    grounding verdict (see the module docstring); ``judge``: the packaged model, asked whether
    a passage states each claim (``grounding.judge``); ``subjects``: the passages' documents'
    titles; ``held``: whether the index holds a name beyond the passages."""
    text = without_markers(answer)
    kind = question_kind(question)
    verdict = check_answer(text, passages, list_items=kind is QuestionKind.LIST,
                           embedder=embedder, question=question, judge=judge,
                           subjects=subjects, held=held)
    found: list[list[Span]] = [[] for _ in passages]
    if verdict.label == UNSUPPORTED and asks_one_fact(question):
        # a refusal never quotes the answer it did not show
        lead = verdict.claims[0] if verdict.claims else None
        nearest, where = closest_with_position(question, passages, avoid=None if lead is None
                                               else partial(holds_answer, lead, question))
        uses = [SourceUse(tuple(_sentence_of(passages[p], nearest)), NEAREST)
                if p == where and nearest else SourceUse((), NO_SUPPORT)
                for p in range(len(passages))]
        return Citations(tuple(uses), tuple(c.text for c in verdict.unsupported_claims),
                         verdict.measure, verdict)
    for check in verdict.claims:
        for position, span in check.support:
            found[position].append(stated_span(check, passages[position], span))
    uses = tuple(SourceUse(tuple(merge_spans(spans)), SUPPORTS if spans else NO_SUPPORT)
                 for spans in found)
    return Citations(uses, tuple(c.text for c in verdict.unsupported_claims), verdict.measure,
                     verdict)


def stated_span(check: ClaimCheck, passage: str, span: Span) -> Span:
    """The sentence of ``passage`` stating ``check``'s claim: the verdict's supporting sentence
    (``span``, the centre of the window it read) or a neighbour of it that holds the claim's
    facts and more of its words (the window "It is free [23]. It is 2000 lines of C++." is
    centred on the first sentence; the claim "2000 lines of C++" is the second's)."""
    spans = verdict_sentences(passage, wrapped=True)
    if span not in spans:
        return span
    at, stems = spans.index(span), set(check.claim.stems)

    def held(candidate: Span) -> tuple[bool, int]:
        sentence = passage[candidate[0]:candidate[1]]
        facts_held = not missing_facts(check.claim.facts, sentence)
        return facts_held, len(stems & set(content_stems(sentence)))

    best = held(span)
    for other in spans[max(0, at - 1):at + 2]:
        if held(other) > best:
            span, best = other, held(other)
    return span


def _sentence_of(passage: str, sentence: str) -> list[Span]:
    """The span of ``sentence`` (as ``closest_sentence`` gave it, split as the verdict splits)
    in ``passage``."""
    words = sentence.rstrip(" \u2026").split()
    for start, end in verdict_sentences(passage, wrapped=True):
        if words and " ".join(passage[start:end].split()).startswith(" ".join(words[:6])):
            return [(start, end)]
    return []


def is_extractive(trace: Any) -> bool:
    """True when every LLM call of ``trace`` (a Trace or its dict) was the extractive backend.

    Its answers only quote; any other model's answers are checked for support.
    """
    if isinstance(trace, dict):
        models = [call.get("model") for call in trace.get("llm_calls", [])]
    else:
        models = [call.model for call in getattr(trace, "llm_calls", [])]
    return bool(models) and all(m == ExtractiveLLM.model for m in models)


def supporting_spans(
    claims: Sequence[str],
    passages: Sequence[str],
    *,
    similarity: Similarity,
    threshold: float,
    margin: float = SUPPORT_MARGIN,
) -> tuple[list[list[Span]], list[str]]:
    """Per passage, the spans of sentences supporting a claim; and the claims none supports."""
    located = [(p, span) for p, text in enumerate(passages) for span in sentence_spans(text)]
    found: list[list[Span]] = [[] for _ in passages]
    if not claims:
        return found, []
    if not located:
        return found, list(claims)
    sentences = [passages[p][start:end] for p, (start, end) in located]
    scores = np.asarray(similarity(claims, sentences), dtype=np.float64)
    unsupported = []
    for claim, row in zip(claims, scores):
        best = float(row.max())
        if best < threshold:
            unsupported.append(claim)
            continue
        for column in np.flatnonzero(row >= max(threshold, best - margin)):
            passage, span = located[column]
            found[passage].append(span)
    return found, unsupported


def embedding_similarity(embedder: Any) -> Similarity:
    """Cosine similarity by ``embedder``, all sentences embedded in one batch."""

    def similarity(claims: Sequence[str], sentences: Sequence[str]) -> np.ndarray:
        vectors = np.asarray(embedder.embed_batch([*claims, *sentences]), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        vectors = vectors / np.where(norms == 0, 1.0, norms)
        return vectors[: len(claims)] @ vectors[len(claims) :].T

    return similarity


def lexical_similarity(claims: Sequence[str], sentences: Sequence[str]) -> np.ndarray:
    """How much of each claim's wording each sentence holds: words and adjacent word pairs."""
    bags = [_bag(s) for s in sentences]
    scores = np.zeros((len(claims), len(sentences)))
    for row, claim in enumerate(claims):
        words, pairs = _bag(claim)
        if not words:
            continue
        for column, (other_words, other_pairs) in enumerate(bags):
            share = len(words & other_words) / len(words)
            pair_share = len(pairs & other_pairs) / len(pairs) if pairs else share
            scores[row, column] = (share + pair_share) / 2
    return scores


def _bag(text: str) -> tuple[set[str], set[tuple[str, str]]]:
    words = terms(text)
    return set(words), set(zip(words, words[1:]))


def _is_quote(claim: str, passages: Sequence[str], quoted: list[list[Span]]) -> bool:
    """True when ``claim`` is (or contains) text the answer quotes from some passage."""
    return any(
        quotes_in(claim, words_of(passage[start:end]))
        or quotes_in(passage[start:end], words_of(claim))
        for passage, spans in zip(passages, quoted)
        for start, end in spans
    )
