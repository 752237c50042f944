"""Choosing the sentences the extractive answerer quotes: by meaning, by words, part by part.

Each candidate sentence (``text``) gets a score for the question (``Scorer``): its
cosine similarity to the question under the embedding model, when the answerer has one, plus
the share of the question's words it contains, each word weighted by how rare it is among the
candidates (a name or number outweighs "use"); without a model the words decide alone. Small
adjustments follow from the question's form (``question``): a "how many" question
prefers a sentence with a number, a "what is X" question one that says "X is ..."; a sentence
that only restates the question ("I have a plan to fight inflation") and a fragment of a few
words rank lower.

A question with several parts ("Who is responsible for the move, and what is the budget?",
"How old were Mora and Rivera?") is split into parts, and each part not yet answered by the
chosen sentences gets its own best sentence. Words that name the documents asked of ("What did
the speech say about ...") are left out of the question first: they say where to look. Nothing is quoted when even the best sentence
scores under a floor: the answerer then says the passages do not answer the question, rather
than quoting the closest noise. ``answer`` turns the ranking into a reply.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from ...search.lexical import BACKGROUND_WEIGHT, terms, words
from .question import (
    asks_for_list,
    asks_for_number,
    asks_for_person,
    defines,
    enumerates,
    has_new_name,
    has_number,
    question_parts,
    restates,
    subject_of,
    without_source_words,
)
from .text import Candidate

# Weights of meaning and words in a sentence's score when a model is there.
SEMANTIC_WEIGHT = 0.7
LEXICAL_WEIGHT = 0.3
# A sentence is worth quoting beside the best one only if it scores this share of the best.
RELATIVE_FLOOR = 0.8
# Under this score the best sentence is noise ("not found"), for the models it was measured
# with. all-MiniLM-L6-v2, on the 77 questions of benchmarks/answers with the default (hybrid)
# retrieval of 4 chunks: the 12 questions the corpus cannot answer scored 0.28-0.49; of the
# answerable ones whose passages hold the answer, all but one scored 0.52 or more.
# Its int8 variant (cosine ~0.99 with it, benchmarks/embedding/embedders.py) shares the floor.
SEMANTIC_FLOORS = {"all-MiniLM-L6-v2": 0.5, "all-MiniLM-L6-v2-onnx-int8": 0.5}
# Without such a model: the share of the question's words one sentence (in context) must hold.
LEXICAL_FLOOR = 0.34
FORM_BONUS = 0.06
LIST_BONUS = 0.15
RESTATEMENT_PENALTY = 0.15
FRAGMENT_WORDS = 4
HEADING_WEIGHT = 1.0  # a heading's words count this much toward the first sentences under it
TOPIC_WEIGHT = 0.7  # and the words of the file's name and title toward all its sentences
LIST_WEIGHT = 0.7  # and the words of the list a sentence introduces
PREVIOUS_WEIGHT = 0.5  # and those of the sentence that "This ..." refers back to



@dataclass(frozen=True, slots=True)
class Ranking:
    """The sentences to quote (candidate indexes, the answer first) and how sure the pick is."""

    chosen: list[int]
    scores: list[float]  # every candidate's score for the whole question
    found: bool


class Scorer:
    """Scores candidate sentences for a question and its parts (one instance per reply).

    A sentence is read in its context (``Candidate``): its heading, its file's name and title
    and the sentence it refers back to add their words (at less weight) and a second text to
    compare by meaning, so "The server has not found anything ..." under "404 Not Found", or
    "These include letters, digits ..." after "... are called unreserved", can win. For a
    question that asks for several things ("What are the rules ...?") a sentence that
    introduces a list is read with its items; for any other question the items stand alone,
    so "--exclude=PATTERN  exclude files" beats the "File selection:" line above it.
    """

    def __init__(self, cands: Sequence[Candidate], embedder: Any = None, *, background: str = ""):
        self.cands = list(cands)
        self.sentences = [c.text for c in self.cands]
        self.embedder = embedder
        self.background = background
        self._bags = {lists: [_bag(c, self.cands, lists=lists) for c in self.cands]
                      for lists in (False, True)}
        df = Counter(t for bag in self._bags[False] for t in bag)
        n = len(self.cands)
        self._idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}
        self._unseen = math.log(1 + (n + 0.5) / 0.5)
        self._all: np.ndarray | None = None  # sentences, then sentences in context
        self._context_rows: dict[bool, dict[int, int]] = {False: {}, True: {}}
        self._query_cache: dict[str, np.ndarray] = {}

    def scores(self, query: str, *, emphasis: frozenset[str] = frozenset()) -> list[float]:
        """Each sentence's score for ``query``: meaning and words, adjusted for the form.

        ``emphasis``: query terms that count double (what tells one part of a question from
        the others).
        """
        lexical = self.coverage(query, emphasis=emphasis)
        semantic = self.similarity(query)
        if semantic is None:
            base = lexical
        else:
            base = [SEMANTIC_WEIGHT * s + LEXICAL_WEIGHT * w for s, w in zip(semantic, lexical)]
        return [b + self._form(i, query) for i, b in enumerate(base)]

    def coverage(self, query: str, *, emphasis: frozenset[str] = frozenset()) -> list[float]:
        """The rarity-weighted share of the query's words each sentence (in context) contains."""
        weight = {t: self._idf.get(t, self._unseen) * (2.0 if t in emphasis else 1.0)
                  for t in terms(query)}
        for t in terms(self.background):
            weight.setdefault(t, BACKGROUND_WEIGHT * self._idf.get(t, self._unseen))
        total = sum(weight.values())
        if not total:
            return [0.0] * len(self.cands)
        bags = self._bags[asks_for_list(query)]
        return [sum(w * bag.get(t, 0.0) for t, w in weight.items()) / total for bag in bags]

    def similarity(self, query: str) -> list[float] | None:
        """Cosine similarity of each sentence (or of it in context) to ``query``; None without
        a model. Sentences are embedded once per scorer, in one batch."""
        vectors = self.sentence_vectors()
        if vectors is None:
            return None
        self.embed_queries([query])
        sims = self._all @ self._query_cache[query]
        rows = self._context_rows[asks_for_list(query)]
        return [max(float(sims[i]), float(sims[rows[i]])) if i in rows else float(sims[i])
                for i in range(len(self.cands))]

    def embed_queries(self, queries: Sequence[str]) -> None:
        """Embed the queries not embedded yet, in one batch (a question and its parts)."""
        missing = [q for q in dict.fromkeys(queries) if q not in self._query_cache]
        if self.embedder is None or not missing:
            return
        texts = [f"{self.background}: {q}" if self.background else q for q in missing]
        for query, vector in zip(missing, np.asarray(self.embedder.embed_batch(texts))):
            self._query_cache[query] = vector

    def sentence_vectors(self) -> np.ndarray | None:
        """The sentences' vectors, one row each (None without a model), embedded on first use
        in one batch with their headings; a sentence in context is the normalized sum of its
        vector and its context's (heading, the sentence it refers back to, its list's mean)."""
        if self.embedder is None or not self.cands:
            return None
        if self._all is None:
            texts = [c.text for c in self.cands]
            headings = sorted({c.heading for c in self.cands if c.heading})
            vectors = np.asarray(self.embedder.embed_batch(texts + headings), dtype=np.float32)
            own, heading_rows = vectors[: len(texts)], dict(zip(headings, vectors[len(texts):]))
            rows = [own]
            for lists in (False, True):
                for i, context in enumerate(_context_vectors(self.cands, own, heading_rows,
                                                             lists=lists)):
                    if context is not None:
                        self._context_rows[lists][i] = sum(len(r) for r in rows)
                        rows.append(context[None, :])
            self._all = np.concatenate(rows)
        return self._all[: len(self.cands)]

    def rarity(self) -> tuple[dict[str, float], float]:
        """Each term's rarity weight among the candidates, and the weight of an unseen term."""
        return self._idf, self._unseen

    def answers(self, query: str, score: float) -> bool:
        """Whether a best sentence scoring ``score`` answers ``query`` rather than being noise.

        Cosine similarities mean different things under different models, so the floor on the
        score holds only for models it was measured with (``SEMANTIC_FLOORS``); under any other
        model, or none, some sentence must contain enough of the query's rarer words.
        """
        floor = SEMANTIC_FLOORS.get(str(getattr(self.embedder, "model_name", "")))
        if self.embedder is not None and floor is not None:
            return score >= floor
        return self.share(query) >= LEXICAL_FLOOR

    def share(self, query: str) -> float:
        """The largest share of the query's words that one sentence (in context) contains."""
        asked = set(terms(query))
        if not asked:
            return 0.0
        bags = self._bags[asks_for_list(query)]
        return max((sum(bag.get(t, 0.0) for t in asked) / len(asked) for bag in bags),
                   default=0.0)

    def _form(self, i: int, query: str) -> float:
        """Adjustments for what the question's form asks for and what the sentence is."""
        cand = self.cands[i]
        sentence = cand.text
        adjust = 0.0
        if asks_for_number(query) and has_number(sentence, query):
            adjust += FORM_BONUS
        if asks_for_person(query) and has_new_name(sentence, query):
            adjust += FORM_BONUS
        subject = subject_of(query)
        if subject and defines(sentence, subject):
            adjust += FORM_BONUS
        if asks_for_list(query):
            if cand.followers:  # the list itself answers: it outranks a definition of the topic
                adjust += LIST_BONUS
            elif enumerates(sentence):
                adjust += FORM_BONUS
            if cand.followers:
                return adjust  # the list it introduces says what the sentence itself does not
        if restates(sentence, query):
            adjust -= RESTATEMENT_PENALTY
        if len(words(sentence)) < FRAGMENT_WORDS:
            adjust -= RESTATEMENT_PENALTY
        return adjust

    def mentions(self, i: int, wanted: frozenset[str]) -> bool:
        """Whether sentence ``i`` (in context) contains any of the terms ``wanted``."""
        return any(t in self._bags[False][i] for t in wanted)

    def same(self, i: int, j: int) -> bool:
        """Whether two sentences say the same thing (overlapping chunks repeat sentences)."""
        a, b = set(terms(self.sentences[i])), set(terms(self.sentences[j]))
        if not a or not b:
            return self.sentences[i] == self.sentences[j]
        return len(a & b) / len(a | b) >= 0.8


def _bag(cand: Candidate, cands: list[Candidate], *, lists: bool) -> dict[str, float]:
    """A sentence's words with weights: its own 1; less for its heading, its file's name and
    title, the sentence it refers back to (what it is about, not what it says) and, with
    ``lists``, the list it introduces."""
    bag: dict[str, float] = {}
    extra: list[tuple[str, float]] = [(cands[f].text, LIST_WEIGHT)
                                      for f in (cand.followers if lists else ())]
    if cand.heading:
        extra.append((cand.heading, HEADING_WEIGHT))
    if cand.topic:
        extra.append((cand.topic, TOPIC_WEIGHT))
    if cand.previous is not None:
        extra.append((cands[cand.previous].text, PREVIOUS_WEIGHT))
    for text, weight in extra:
        for t in terms(text):
            bag[t] = max(bag.get(t, 0.0), weight)
    for t in terms(cand.text):
        bag[t] = 1.0
    return bag


def _context_vectors(
    cands: list[Candidate], own: np.ndarray, headings: dict[str, np.ndarray], *, lists: bool
) -> list[np.ndarray | None]:
    """For each sentence, the vector of it in context (None when it has none): its own plus
    its heading's, the sentence it refers back to and (with ``lists``) its list's mean."""
    out: list[np.ndarray | None] = []
    for i, c in enumerate(cands):
        parts = [headings[c.heading]] if c.heading else []
        if c.previous is not None:
            parts.append(own[c.previous])
        items = c.followers[:6] if lists else []
        if items:
            parts.append(own[items].mean(axis=0))
        if not parts:
            out.append(None)
            continue
        total = own[i] + np.mean(parts, axis=0)
        out.append(total / (np.linalg.norm(total) or 1.0))
    return out


def rank(scorer: Scorer, question: str, *, limit: int, floor: bool = True) -> Ranking:
    """The sentences answering ``question``: the best first, then one for each part of the
    question the chosen ones leave unanswered, then close runners-up, ``limit`` at most.
    Without ``floor`` the best sentence is chosen however low it scores (the caller decides
    whether it answers)."""
    if not scorer.cands:
        return Ranking([], [], False)
    question = without_source_words(question)
    parts = question_parts(question)
    scorer.embed_queries([question, *parts] if len(parts) > 1 else [question])
    scores = scorer.scores(question)
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    if floor and not scorer.answers(question, scores[best]):
        return Ranking([], scores, False)
    chosen = [best]
    if len(parts) > 1:
        _cover_parts(scorer, parts, chosen, limit)
    for i in sorted(range(len(scores)), key=lambda i: (-scores[i], i)):
        if len(chosen) >= limit or scores[i] < RELATIVE_FLOOR * scores[best]:
            break
        if i not in chosen and not any(scorer.same(i, j) for j in chosen):
            chosen.append(i)
    return Ranking(chosen, scores, True)


def _cover_parts(scorer: Scorer, parts: list[str], chosen: list[int], limit: int) -> None:
    """Add, for each part the chosen sentences do not answer, that part's best sentence: one
    that names what tells this part from the others ("Rivera", not "Mora"), when it has such."""
    bags = [set(terms(p)) for p in parts]
    for k, part in enumerate(parts):
        if len(chosen) >= limit:
            return
        others = set().union(*(b for j, b in enumerate(bags) if j != k))
        own = frozenset(bags[k] - others)
        scores = scorer.scores(part, emphasis=own)
        fitting = [i for i in range(len(scores)) if not own or scorer.mentions(i, own)]
        if not fitting:
            continue
        best = max(fitting, key=lambda i: (scores[i], -i))
        if best in chosen or not scorer.answers(part, scores[best]):
            continue
        if any(scores[j] >= 0.9 * scores[best] for j in chosen if j in fitting):
            continue  # a chosen sentence answers this part nearly as well
        if not any(scorer.same(best, j) for j in chosen):
            chosen.append(best)
