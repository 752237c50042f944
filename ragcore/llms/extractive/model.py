"""The learned part of the offline answerer: which phrase answers, and whether anything does.

Two small linear models, trained by ``training/answerer/train.py`` on the training split of
SQuAD 2.0 (its source, split and the recipe of the shipped weights are written in
``training/answerer/README.md``) and
shipped as named weights in ``weights.json`` (no pickle):

- the **span model** scores every candidate phrase (``span.spans``) of the best
  sentences by its features (``span.features``); the phrases of one question
  compete in a softmax, so its probability says how clearly one phrase wins. With the
  packaged model a second stage (``typed_rows``, weights ``span_typed``) rescores the
  ``TYPED_CANDIDATES`` best by how close each phrase's meaning is to what the question asks
  for ("nationality": "Australian", not "term");
- the **answer model** says how likely it is that the passages answer the question at all,
  from the best sentence's scores (meaning and words), how clearly a phrase wins and what the
  question asks; under its calibrated threshold the answerer says "not found".

Each model comes in two variants: ``semantic`` for the packaged embedding model the weights
were trained with (``all-MiniLM-L6-v2`` and its int8 variant), ``lexical`` for any other model
or none (sentence scores are then words alone, and mean something else).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from ...search.lexical import terms
from .span import (
    Span, Token, answer_type, features, head_noun, question_sides, spans, tokens, type_words,
)

WEIGHTS_FILE = Path(__file__).with_name("weights.json")
TRAINED_MODELS = ("all-MiniLM-L6-v2", "all-MiniLM-L6-v2-onnx-int8")
# The phrases of this many best sentences compete: 6, not 5, finds a name one sentence further
# down ("Irene Adler" for "Who is the woman Holmes admires?"); on 300 training questions, short
# answer F1 49.3 with 5 and 49.6 with 6, whole answers as long.
TOP_SENTENCES = 6
# A "who" question's phrase that is no name of its own ("Bohemia", "Holmes" asked of Holmes)
# gives way to a name of two or more words the question and title do not hold ("Irene Adler")
# scoring within this many logits of it (and takes over its probability: the model's certainty
# that the best sentences hold the phrase).
NAME_MARGIN = 2.0
# The phrase is chosen among this many best-scored ones by expected overlap (``best_phrase``):
# article-level cross-validation on the training questions, token F1 of the phrase 44.9 when
# the best-scored phrase is taken, 45.8 with this choice (a gradient-boosted reranker over the
# same 25 reached 45.7, so the simpler rule ships).
MBR_CANDIDATES = 25
# The second stage rescores this many phrases, best first by the first stage, with how close
# their meaning is to the question's type words: article-level cross-validation on the training
# questions, token F1 46.9 -> 48.1 (the type words alone; adding their similarity to the answer
# type's own word or to the whole question gained nothing).
TYPED_CANDIDATES = 40
# A name of two or more capitalised words, "of"/"the"/"de" between them ("Ocarina of Time").
NAME_RUN = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+|de\s+)*[A-Z][\w'-]*)+")


@dataclass(frozen=True, slots=True)
class Phrase:
    """The winning phrase: candidate ``sentence``, its character span there, its probability."""

    sentence: int
    start: int
    end: int
    text: str
    probability: float


@dataclass(frozen=True, slots=True)
class Assessment:
    """What the models make of a question over the candidates: the phrase (if the question
    wants one) and the probability that the passages answer it."""

    phrase: Phrase | None
    answered: float
    threshold: float

    @property
    def found(self) -> bool:
        return self.answered >= self.threshold


@dataclass(slots=True)
class Reading:
    """A question read over the candidates: the best sentences and their phrases' features."""

    kind: str | None
    order: list[int]  # candidate indexes of the best sentences, best first
    rows: list[tuple[int, list[Token], Span, dict[str, float]]]
    best_sentence: dict[str, float]
    share: float
    missing: dict[str, float]  # how much of the question no passage mentions


@lru_cache(maxsize=1)
def load_weights(path: Path = WEIGHTS_FILE) -> dict[str, Any]:
    """The shipped weights (read once per process)."""
    return json.loads(path.read_text(encoding="utf-8"))


def variant(embedder: Any) -> str:
    """"semantic" when the sentence scores come from the model the weights were trained with."""
    name = str(getattr(embedder, "model_name", "")) if embedder is not None else ""
    return "semantic" if name in TRAINED_MODELS else "lexical"


def question_weights(question: str, idf: dict[str, float], unseen: float) -> dict[str, float]:
    """The question's stems, each weighted by its rarity among the candidates (sum 1)."""
    raw = {t: idf.get(t, unseen) for t in terms(question)}
    total = sum(raw.values()) or 1.0
    return {t: w / total for t, w in raw.items()}


def sentence_features(rank: int, score: float, best: float, semantic: float | None,
                      coverage: float) -> dict[str, float]:
    """How well a phrase's sentence answers the question as a whole (shared by its phrases)."""
    out = {f"sentence_rank={rank}": 1.0, "sentence_score": score, "sentence_gap": best - score,
           "sentence_rank": float(rank),
           "sentence_words": coverage}
    if semantic is not None:
        out["sentence_meaning"] = semantic
    return out


def phrase_table(
    question: str,
    sentences: Sequence[str],
    sentence_feats: Sequence[dict[str, float]],
    asked: dict[str, float],
    rarity: dict[str, float],
    topics: Sequence[set[str]],
    spread: dict[str, float],
) -> list[tuple[int, list[Token], Span, dict[str, float]]]:
    """Every candidate phrase of ``sentences`` with its features (for scoring and training).

    ``topics``: the stems of each sentence's passage title and file name (what the passage is
    about is seldom what a question asks); ``spread``: the share of all candidate sentences
    each stem appears in (a name the passages keep returning to is salient).
    """
    kind = answer_type(question) or "none"
    sides = question_sides(question, asked)
    head = head_noun(question)
    rows = []
    for k, (text, shared) in enumerate(zip(sentences, sentence_feats)):
        toks = tokens(text)
        for span in spans(toks):
            feats = features(toks, span, kind, asked, sides, head, shared, rarity)
            own = set(terms(text[toks[span.first].start: toks[span.last].end]))
            if own:
                feats["in_topic"] = len(own & topics[k]) / len(own)
                feats[f"{kind}|in_topic"] = feats["in_topic"]
                feats["spread"] = max(spread.get(t, 0.0) for t in own)
                if _new_name(toks, span, own, set(asked) | topics[k]):
                    feats["new_name"] = 1.0
                    feats[f"{kind}|new_name"] = 1.0
            rows.append((k, toks, span, feats))
    return rows


def _new_name(toks: Sequence[Token], span: Span, own: set[str], known: set[str]) -> bool:
    """A name of two or more capitalised words that neither the question nor the passage's
    title holds ("Irene Adler" for "Who is the woman Holmes admires?")."""
    words = [t for t in toks[span.first: span.last + 1] if t.is_word]
    return len(words) >= 2 and all(t.text[0].isupper() for t in words) and not own & known


def linear(weights: dict[str, float], feats: dict[str, float]) -> float:
    return sum(weights.get(name, 0.0) * value for name, value in feats.items())


def best_phrase(rows: list, weights: dict[str, float]) -> tuple[int, float, float] | None:
    """The index of the chosen row, and the softmax probability of the best-scored row and its
    margin over the next (what the answer model reads).

    The chosen phrase is the one with the highest expected token overlap with the answer
    (``_expected_overlap``), not simply the best-scored one: phrases that nest or overlap
    ("Celine Dion", "Madonna and Celine Dion") share their probability, so the phrase most of
    the likely readings agree on wins (minimum Bayes risk under SQuAD's token F1).
    """
    if not rows:
        return None
    scores = [linear(weights, f) for *_, f in rows]
    top = max(scores)
    best = _expected_overlap(rows, scores)
    if "person|new_name" not in rows[best][3]:  # a person is named by a name of their own
        names = [i for i, (*_, f) in enumerate(rows)
                 if "person|new_name" in f and scores[i] >= top - NAME_MARGIN]
        best = max(names, key=lambda i: scores[i], default=best)
    if "person|new_name" in rows[best][3]:  # the whole name: "Ketanji Brown Jackson"
        k, _, span, _ = rows[best]
        whole = [i for i, (k2, _, s2, f) in enumerate(rows) if k2 == k and "person|new_name" in f
                 and s2.first <= span.first and s2.last >= span.last]
        best = max(whole, key=lambda i: rows[i][2].last - rows[i][2].first)
    return best, *confidence(scores)


def confidence(scores: Sequence[float]) -> tuple[float, float]:
    """The softmax probability of the best of ``scores`` and its margin over the next."""
    top = max(scores)
    total = sum(math.exp(s - top) for s in scores)
    runner = sorted(scores)[-2] if len(scores) > 1 else top - 10.0
    return 1.0 / total, top - runner


def _expected_overlap(rows: list, scores: Sequence[float]) -> int:
    """The row, among the ``MBR_CANDIDATES`` best-scored, whose words overlap most with the
    others' weighted by their softmax probability (token F1; a row counts itself)."""
    order = sorted(range(len(rows)), key=lambda i: -scores[i])[:MBR_CANDIDATES]
    weights = [math.exp(scores[i] - scores[order[0]]) for i in order]
    bags = [Counter(_answer_words(rows[i])) for i in order]
    sizes = [sum(bag.values()) for bag in bags]

    def overlap(a: int, b: int) -> float:
        same = sum((bags[a] & bags[b]).values())
        return 2.0 * same / (sizes[a] + sizes[b]) if same else 0.0

    values = [sum(w * overlap(a, b) for b, w in enumerate(weights)) for a in range(len(order))]
    return order[max(range(len(order)), key=lambda a: (values[a], -a))]


def phrase_texts(reading: Reading, cands: Sequence[Any]) -> list[str]:
    """Each row's phrase as it stands in its sentence."""
    return [cands[reading.order[k]].text[toks[s.first].start: toks[s.last].end]
            for k, toks, s, _ in reading.rows]


def typed_rows(rows: list, texts: Sequence[str], weights: dict[str, float], question: str,
               kind: str, embed: Callable[[list[str]], np.ndarray]) -> tuple[list[int], list]:
    """The indexes of the ``TYPED_CANDIDATES`` best ``rows`` by ``weights`` (the first stage),
    and those rows with the cosine of their phrase (``texts``, one per row) and the question's
    type words (``type_words``) added to their features for the second stage. ``embed`` gives
    normalized vectors."""
    scores = [linear(weights, f) for *_, f in rows]
    top = sorted(range(len(rows)), key=lambda i: (-scores[i], i))[:TYPED_CANDIDATES]
    wanted = type_words(question, kind)
    if not top or wanted is None:
        return top, [rows[i] for i in top]
    vectors = embed([wanted, *(texts[i] for i in top)])
    out = []
    for i, vector in zip(top, vectors[1:]):
        k, toks, span, feats = rows[i]
        sim = float(vector @ vectors[0])
        out.append((k, toks, span, {**feats, "type_sim": sim, f"{kind}|type_sim": sim}))
    return top, out


def _answer_words(row: tuple) -> list[str]:
    """A phrase's words as SQuAD's measure compares them: lower case, no articles."""
    _, toks, span, _ = row
    return [t.low for t in toks[span.first: span.last + 1]
            if t.is_word and t.low not in ("a", "an", "the")] or ["\0"]


def answer_features(reading: Reading, phrase: tuple[float, float] | None) -> dict[str, float]:
    """What the answer model reads: the best sentence's scores, the share of the question's
    words one sentence holds and no passage holds, how clearly a phrase wins, and the kind of
    question."""
    best_sentence = reading.best_sentence
    out = {"bias": 1.0, "best_score": best_sentence.get("sentence_score", 0.0),
           "best_words": best_sentence.get("sentence_words", 0.0), "best_share": reading.share,
           f"kind={reading.kind or 'sentences'}": 1.0, **reading.missing}
    if "sentence_meaning" in best_sentence:
        out["best_meaning"] = best_sentence["sentence_meaning"]
    if phrase is not None:
        probability, margin = phrase
        out["phrase_probability"] = probability
        out["phrase_margin"] = min(margin, 10.0)
    return out


def probability(weights: dict[str, float], feats: dict[str, float]) -> float:
    z = linear(weights, feats)
    return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


def read(scorer: Any, question: str, scores: Sequence[float]) -> Reading:
    """The best ``TOP_SENTENCES`` sentences by ``scores`` (the ranker's, for ``question``) and
    the features of their phrases. ``scorer`` is the ranker's ``Scorer`` for the candidates."""
    kind = answer_type(question)
    cands = scorer.cands
    order = sorted(range(len(cands)), key=lambda i: (-scores[i], i))[:TOP_SENTENCES]
    semantic = scorer.similarity(question)
    coverage = scorer.coverage(question)
    best = scores[order[0]] if order else 0.0
    shared = [sentence_features(r, scores[i], best, None if semantic is None else semantic[i],
                                coverage[i]) for r, i in enumerate(order)]
    idf, unseen = scorer.rarity()
    asked = question_weights(question, idf, unseen)
    rarity = {t: w / unseen for t, w in idf.items()}
    texts = [cands[i].text for i in order]
    topics = [set(terms(cands[i].topic)) for i in order]
    seen = Counter(t for c in cands for t in set(terms(c.text)))
    spread = {t: n / len(cands) for t, n in seen.items()}
    rows = phrase_table(question, texts, shared, asked, rarity, topics, spread) if kind else []
    missing = _missing(question, asked, rarity, cands, cands[order[0]] if order else None)
    return Reading(kind, order, rows, shared[0] if shared else {}, scorer.share(question),
                   missing)


def _missing(question: str, asked: dict[str, float], rarity: dict[str, float],
             cands: Sequence[Any], best: Any) -> dict[str, float]:
    """How much of the question the passages, and the best sentence, do not mention: what a
    question they cannot answer usually asks ("... in 1990?" of a passage about 1980). The
    words of a sentence's headings, title and file name count as mentioned ("PEP 8" of
    pep-0008.rst, "the Zen of Python" under that title). A name no two words of which stand
    together in the passages ("Twilight Enemies" of passages on "Twilight Princess" and its
    enemies) is what a question they cannot answer often asks; a name they hold in part is
    the same name named more fully ("NIST Privacy Framework" of the "Privacy Framework")."""
    said = [seq for c in cands for seq in _said(c)]
    present = {t for seq in said for t in seq}
    near = {t for seq in _said(best) for t in seq} if best is not None else set()
    out: dict[str, float] = {}
    for name, bag in (("passages", present), ("best", near)):
        absent = [t for t in asked if t not in bag]
        out[f"missing_{name}_share"] = sum(asked[t] for t in absent)
        out[f"missing_{name}_rarest"] = max((rarity.get(t, 1.0) for t in absent), default=0.0)
    names = [t for t in tokens(question)[1:] if t.text[:1].isupper() or t.text[:1].isdigit()]
    unseen = [t for t in names if not {_number(w) for w in terms(t.text)} <= present]
    out["missing_names"] = float(len(unseen))
    pairs = {p for seq in said for p in _pairs(seq)}
    asked_pairs = _pairs(_sequence(question))
    out["missing_pairs_share"] = len(asked_pairs - pairs) / (len(asked_pairs) or 1)
    out["missing_name_pairs"] = float(sum(1 for name in names_asked(question)
                                          if not _pairs(_sequence(name.group())) & pairs))
    return out


def names_asked(question: str) -> list[re.Match]:
    """The names of two or more words in ``question`` (``NAME_RUN``), read after its first
    word, whose capital may be the sentence's alone: "Twilight Enemies" of "Which Twilight
    Enemies ...?", nothing of "Twilight Princess was ...?"."""
    first = re.match(r"\s*\S+", question)
    return list(NAME_RUN.finditer(question, first.end() if first else 0))


def _said(cand: Any) -> list[list[str]]:
    """The stems of a candidate sentence, of the headings above it and of its title and file
    name, each text's in order."""
    return [_sequence(text) for text in (cand.text, cand.topic, cand.heading, cand.section)]


def _sequence(text: str) -> list[str]:
    """The stems of ``text`` in order (numbers without leading zeros: "0008" is "8")."""
    return [_number(t) for t in terms(text)]


def _pairs(seq: Sequence[str]) -> set[tuple[str, str]]:
    """Each two stems that follow each other in ``seq`` (function words are left out)."""
    return set(zip(seq, seq[1:]))


def _number(term: str) -> str:
    return term.lstrip("0") or term if term.isdigit() else term


def phrase_rows(scorer: Any, question: str, scores: Sequence[float]
                ) -> tuple[Reading, list, dict[str, float]]:
    """``question`` read over the scorer's candidates, its phrases' rows (with the second
    stage's features when the weights have one) and the span weights that score them."""
    weights, which = load_weights(), variant(scorer.embedder)
    reading = read(scorer, question, scores)
    rows, span_weights = reading.rows, weights["span"][which]
    if rows and which in weights.get("span_typed", {}):
        _, rows = typed_rows(rows, phrase_texts(reading, scorer.cands), span_weights, question,
                             reading.kind or "none", scorer.embedder.embed_batch)
        span_weights = weights["span_typed"][which]
    return reading, rows, span_weights


def assess(scorer: Any, question: str, scores: Sequence[float]) -> Assessment:
    """The phrase that answers ``question`` (for questions that want one) and the probability
    that the passages answer it at all, by the shipped weights for the scorer's model."""
    reading, rows, span_weights = phrase_rows(scorer, question, scores)
    which = variant(scorer.embedder)
    won = best_phrase(rows, span_weights)
    phrase = None
    if won is not None:
        row, chance, margin = won
        k, toks, span, _ = rows[row]
        first, last = toks[span.first], toks[span.last]
        sentence = reading.order[k]
        text = scorer.cands[sentence].text[first.start: last.end]
        phrase = Phrase(sentence, first.start, last.end, text, chance)
    model = load_weights()["found"][which]
    feats = answer_features(reading, None if won is None else won[1:])
    return Assessment(phrase, probability(model["weights"], feats), model["threshold"])
