"""Train the offline answerer's span and answer models; write ragcore/llms/extractive/weights.json.

This is the recipe of the shipped weights (``README.md`` beside this file says how closely a
rebuild matches them): commit 126c0d5's ``benchmarks/train_answerer.py`` on today's tree.

Data: SQuAD's **training** split only (``training.answerer.squad.RECIPE_FILES``): the
training articles of ``data/train.json`` (SQuAD 2.0) and ``data/train_extra.json`` (four more
articles of SQuAD 1.1's training split); sources, licence and the split are written in
``README.md``. The held-out articles judge the result in ``python -m benchmarks --only
answers``; nothing in ``training/`` reads them. Each question goes through the default query
engine over an index of all the training paragraphs (``contexts``), so the models learn from
the passages a user's question really brings. Only the feature families the shipped weights
use are read (``families``): the answerer computes a few rejected ones besides.

- Span model (conditional logit, L2): the phrases of a question's best sentences compete; a
  phrase is right when its normalized text equals a gold answer's (the SQuAD normalization).
  Questions whose best sentences hold no gold phrase teach it nothing and are left out.
- Second stage (semantic variant only: it compares meanings): the same conditional logit over
  the first stage's best ``TYPED_CANDIDATES`` phrases of each question, with the cosine between
  each phrase and the question's type words as features
  (``ragcore.llms.extractive.model.typed_rows``).
- Answer model (logistic regression, L2): positive when the passages given hold a gold answer,
  negative for SQuAD's unanswerable questions, for questions whose passages lack every gold
  answer, for off-topic questions (a third of the questions, each given the passages of a
  question about another article: what a user asks of documents that do not cover it) and
  for near misses (every third answerable question with a number or name changed to one its
  passages do not hold, as SQuAD 2.0's unanswerable questions were written: ``negatives``).
  Its threshold is set on the training questions themselves so that at most
  ``FALSE_NOT_FOUND`` of the positives fall under it. Near misses teach the semantic variant
  only: the lexical one, reading words alone, learned from them to accept questions most of
  whose words no passage holds.

    python -m training.answerer.train            # both variants, writes the shipped file
    python -m training.answerer.train --variant lexical --out /tmp/lexical.json

The two variants train at once, a process each. A question's phrases are kept as feature ids
(``Example``), not dicts, to keep two variants' phrases in memory at once. The passages and the
sentence vectors are cached per packaged model variant (int8, float32).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import multiprocessing
import re
import string
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from training.answerer.contexts import CACHE_DIR, CachedEmbedder, build_contexts
from training.answerer.families import (
    ANSWER_FAMILIES, SPAN_FAMILIES, TYPED_FAMILIES, shipped_only,
)
from training.answerer.negatives import near_misses, off_topic
from training.answerer.squad import RECIPE_FILES, training_articles

ROOT = Path(__file__).resolve().parents[2]
WEIGHTS = ROOT / "ragcore" / "llms" / "extractive" / "weights.json"
MIN_COUNT = 3  # features seen fewer times are left out
L2_SPAN = 1.0
L2_FOUND = 1.0
FALSE_NOT_FOUND = 0.04
VARIANTS = ("semantic", "lexical")
SOURCE = ("SQuAD 2.0 training split (Rajpurkar, Jia & Liang 2018, CC BY-SA 4.0), training "
          "articles of training/answerer/data/train.json, and four articles of SQuAD 1.1's "
          "training split (Rajpurkar et al. 2016, CC BY-SA 4.0) in train_extra.json")


def normalize(text: str) -> str:
    """SQuAD's answer normalization: lower case, no punctuation, articles or extra spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


@dataclass(slots=True)
class Example:
    """One question read over its passages, kept small: its phrases' features as ids of
    ``Vocabulary`` names (decoded again, one question at a time, by ``rows``), each phrase's
    text, the gold answers, whether the passages hold one, and the reading without its phrases
    (what the answer model reads besides them)."""

    question: str
    reading: Any
    texts: list[str]
    golds: set[str]
    holds: bool
    where: np.ndarray  # per phrase: sentence, first word, last word
    starts: np.ndarray  # per phrase: where its features begin in cols / vals
    cols: np.ndarray
    vals: np.ndarray  # float64: the values the answerer computed, not rounded

    def rows(self, names: list[str]) -> list[tuple]:
        """The phrases as rows of ``ragcore.llms.extractive.model``: (sentence, None, Span,
        features)."""
        from ragcore.llms.extractive.span import Span

        ends = [*self.starts[1:], len(self.cols)]
        return [(int(k), None, Span(int(a), int(b)),
                 {names[c]: float(v) for c, v in zip(self.cols[s:e], self.vals[s:e])})
                for (k, a, b), s, e in zip(self.where, self.starts, ends)]


class Vocabulary:
    """Feature names as ids."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.names: list[str] = []

    def encode(self, feats: dict[str, float]) -> list[tuple[int, float]]:
        """``feats`` as (id, value), zeros kept: a feature named counts towards ``MIN_COUNT``
        whatever its value, as in the recipe of the shipped weights."""
        out = []
        for name, value in feats.items():
            if name not in self.ids:
                self.ids[name] = len(self.names)
                self.names.append(name)
            out.append((self.ids[name], value))
        return out


def examples(rows: list[dict], embedder, which: str, vocab: Vocabulary) -> list[Example]:
    """Each question read over its passages (``Example``), its phrases' features kept to the
    shipped span families (``SPAN_FAMILIES``)."""
    from ragcore.llms.extractive.answer import strip_labels
    from ragcore.llms.extractive.model import phrase_texts, read
    from ragcore.llms.extractive.question import without_source_words
    from ragcore.llms.extractive.rank import Scorer
    from ragcore.llms.extractive.text import candidates

    out = []
    for row in rows:
        cands = candidates(strip_labels(row["context"]))
        if not cands:
            continue
        scorer = Scorer(cands, embedder if which == "semantic" else None)
        question = without_source_words(row["asked"])
        reading = read(scorer, question, scorer.scores(question))
        golds = {normalize(g) for g in row["answers"]} - {""}
        context = normalize(row["context"])
        holds = not row["impossible"] and any(g in context for g in golds)
        encoded = [vocab.encode(shipped_only(f, SPAN_FAMILIES)) for *_, f in reading.rows]
        flat = [pair for pairs in encoded for pair in pairs]
        out.append(Example(
            question, dataclasses.replace(reading, rows=[]), phrase_texts(reading, cands), golds,
            holds, np.array([(k, s.first, s.last) for k, _, s, _ in reading.rows], np.int32),
            np.cumsum([0] + [len(p) for p in encoded[:-1]]).astype(np.int64),
            np.array([c for c, _ in flat], np.int32), np.array([v for _, v in flat], np.float64)))
    return out


def span_sets(data: list[Example], rows_of) -> list[tuple]:
    """Span examples: each answered question's phrases (``rows_of`` gives the rows and their
    texts) with which are right; questions whose phrases hold no gold answer teach nothing."""
    out = []
    for example in data:
        if not example.holds:
            continue
        rows, row_texts = rows_of(example)
        labels = [normalize(t) in example.golds for t in row_texts]
        if any(labels):
            out.append(([f for *_, f in rows], labels))
    return out


def first_stage(names: list[str]):
    """``rows_of`` for the first stage: every phrase of the best sentences."""
    return lambda example: (example.rows(names), example.texts)


def typed(names: list[str], span_weights: dict[str, float], embedder):
    """``rows_of`` for the second stage: the first stage's best phrases with their type
    similarity (``ragcore.llms.extractive.model.typed_rows``)."""
    from ragcore.llms.extractive.model import typed_rows

    def rows_of(example):
        if not len(example.where):
            return [], []
        top, rows = typed_rows(example.rows(names), example.texts, span_weights,
                               example.question, example.reading.kind or "none",
                               embedder.embed_batch)
        rows = [(*row[:3], shipped_only(row[3], TYPED_FAMILIES)) for row in rows]
        return rows, [example.texts[i] for i in top]
    return rows_of


def vocabulary(feature_dicts) -> dict[str, int]:
    """Feature names named (whatever their value) at least ``MIN_COUNT`` times, as columns."""
    counts = Counter(name for f in feature_dicts for name in f)
    return {name: k for k, name in enumerate(sorted(n for n, c in counts.items()
                                                    if c >= MIN_COUNT))}


def matrix(feature_dicts: list[dict], vocab: dict[str, int]) -> sparse.csr_matrix:
    rows, cols, vals = [], [], []
    for r, f in enumerate(feature_dicts):
        for name, value in f.items():
            if name in vocab and value:
                rows.append(r)
                cols.append(vocab[name])
                vals.append(value)
    return sparse.csr_matrix((vals, (rows, cols)), shape=(len(feature_dicts), len(vocab)))


def train_spans(span_sets) -> dict[str, float]:
    """Conditional logit over each question's phrases (feature dicts), L2-regularized."""
    flat = [f for feats, _ in span_sets for f in feats]
    vocab = vocabulary(flat)
    y = np.array([float(l) for _, labels in span_sets for l in labels])
    return fit_spans(matrix(flat, vocab), y, [len(feats) for feats, _ in span_sets], vocab)


def train_first_stage(data: list[Example], names: list[str]) -> dict[str, float]:
    """``train_spans`` of the first stage, on the examples' encoded features as they are:
    every phrase of every answered question, too many to hold as dicts."""
    kept = [e for e in data if e.holds]
    labels = [[normalize(t) in e.golds for t in e.texts] for e in kept]
    kept, labels = zip(*[(e, l) for e, l in zip(kept, labels) if any(l)])
    counts = np.bincount(np.concatenate([e.cols for e in kept]), minlength=len(names))
    seen = sorted(np.flatnonzero(counts >= MIN_COUNT), key=lambda c: names[c])
    vocab = {names[c]: k for k, c in enumerate(seen)}
    column = np.full(len(names), -1)
    column[seen] = np.arange(len(seen))
    blocks = []
    for e in kept:
        row = np.repeat(np.arange(len(e.texts)), np.diff([*e.starts, len(e.cols)]))
        col = column[e.cols]
        keep = (col >= 0) & (e.vals != 0)
        blocks.append(sparse.csr_matrix((e.vals[keep], (row[keep], col[keep])),
                                        shape=(len(e.texts), len(vocab))))
    y = np.array([float(v) for l in labels for v in l])
    return fit_spans(sparse.vstack(blocks).tocsr(), y, [len(e.texts) for e in kept], vocab)


def fit_spans(x: sparse.csr_matrix, y: np.ndarray, sizes: list[int], vocab: dict[str, int]
              ) -> dict[str, float]:
    """Conditional logit: the rows of each question (``sizes``, in order) compete in a
    softmax; ``y`` marks the right ones. L2-regularized, by L-BFGS."""
    starts = np.cumsum([0] + sizes)[:-1]
    group = np.repeat(np.arange(len(sizes)), sizes)

    def loss(w):
        s = x @ w
        top = np.maximum.reduceat(s, starts)
        e = np.exp(s - top[group])
        total = np.add.reduceat(e, starts)
        right = np.add.reduceat(e * y, starts)
        value = -np.sum(np.log(right / total)) + L2_SPAN * w @ w
        grad_s = e / total[group] - e * y / right[group]
        return value, x.T @ grad_s + 2 * L2_SPAN * w

    w = minimize(loss, np.zeros(len(vocab)), jac=True, method="L-BFGS-B",
                 options={"maxiter": 400}).x
    return {name: round(float(w[k]), 4) for name, k in vocab.items() if abs(w[k]) >= 1e-3}


def train_found(data: list[Example], span_weights, rows_of) -> dict:
    """Logistic regression on whether the passages answer, and its threshold: the
    ``FALSE_NOT_FOUND`` quantile of its probability on the answered training questions. The
    weights of what the passages leave out of the question (``missing_*``) are kept at or
    under 0: more of the question unmentioned never makes an answer likelier."""
    feats, labels = answer_rows(data, span_weights, rows_of)
    vocab = vocabulary(feats)
    x, y = matrix(feats, vocab), np.array(labels)

    def loss(w):
        z = np.clip(x @ w, -30, 30)
        p = 1 / (1 + np.exp(-z))
        value = -np.sum(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
        return value + L2_FOUND * w @ w, x.T @ (p - y) + 2 * L2_FOUND * w

    bounds = [(None, 0.0) if name.startswith("missing_") else (None, None) for name in vocab]
    w = minimize(loss, np.zeros(len(vocab)), jac=True, method="L-BFGS-B", bounds=bounds).x
    p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
    threshold = float(np.quantile(p[y == 1], FALSE_NOT_FOUND))
    refused = float(np.mean(p[y == 0] < threshold)) if (y == 0).any() else 0.0
    print(f"  answer model: {int(y.sum())} answered, {int((1 - y).sum())} not; threshold "
          f"{threshold:.3f} keeps {1 - FALSE_NOT_FOUND:.0%} of answered and refuses "
          f"{refused:.0%} of the rest (training questions)", flush=True)
    return {"weights": {name: round(float(w[k]), 5) for name, k in vocab.items()},
            "threshold": round(threshold, 4)}


def answer_rows(data: list[Example], span_weights, rows_of) -> tuple[list[dict], list[float]]:
    """What the answer model reads of each question (its shipped families,
    ``ANSWER_FAMILIES``), and whether its passages answer it."""
    from ragcore.llms.extractive.model import answer_features, confidence, linear

    feats, labels = [], []
    for example in data:
        scores = [linear(span_weights, f) for *_, f in rows_of(example)[0]]
        read = answer_features(example.reading, confidence(scores) if scores else None)
        feats.append(shipped_only(read, ANSWER_FAMILIES))
        labels.append(float(example.holds))
    return feats, labels


def train_variant(job: tuple) -> dict:
    """The weights of one variant (semantic, lexical): its span stages and answer model."""
    from ragcore.embeddings.packaged import default_embedder

    rows, near, which, started = job
    model = default_embedder()
    embedder = CachedEmbedder(model, CACHE_DIR / f"answerer-vectors-{model.model_name}.npy")
    vocab = Vocabulary()
    data = examples(rows + near * (which == "semantic"), embedder, which, vocab)
    out = {"span": train_first_stage(data, vocab.names)}
    print(f"{which}: first stage trained on {len(data)} questions "
          f"({time.perf_counter() - started:.0f} s)", flush=True)
    weights, rows_of = out["span"], first_stage(vocab.names)
    if which == "semantic":  # the second stage compares meanings: the model's alone
        rows_of = typed(vocab.names, weights, embedder)
        weights = out["span_typed"] = train_spans(span_sets(data, rows_of))
        embedder.save()
        print(f"{which}: second stage trained ({time.perf_counter() - started:.0f} s)",
              flush=True)
    out["found"] = train_found(data, weights, rows_of)
    return out


def arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line: by default both variants, written over the shipped weights."""
    parser = argparse.ArgumentParser(prog="python -m training.answerer.train",
                                     description=__doc__.split("\n", 1)[0])
    parser.add_argument("--variant", choices=VARIANTS, action="append",
                        help="train this variant only (to check a rebuild); default: both")
    parser.add_argument("--out", type=Path, default=WEIGHTS,
                        help=f"where to write the weights (default: {WEIGHTS.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    args.variant = [v for v in VARIANTS if v in (args.variant or VARIANTS)]
    if len(args.variant) < len(VARIANTS) and args.out.resolve() == WEIGHTS:
        parser.error(f"--variant {args.variant[0]} writes one variant's weights only: give "
                     f"--out PATH (the shipped {WEIGHTS.name} must hold both variants)")
    return args


def main(argv: list[str] | None = None) -> int:
    from ragcore.embeddings.packaged import default_embedder

    args = arguments(argv)
    started = time.perf_counter()
    articles = training_articles(files=RECIPE_FILES)
    model = default_embedder()
    # one cache per model: vectors of two variants (float32, int8) must never mix
    embedder = CachedEmbedder(model, CACHE_DIR / f"answerer-vectors-{model.model_name}.npy")
    rows = build_contexts(articles, embedder, name=f"squad-train-{model.model_name}")
    near = near_misses(rows)
    rows += off_topic(rows)
    print(f"{len(rows)} training questions, off-topic ones included, and {len(near)} near "
          f"misses ({time.perf_counter() - started:.0f} s)", flush=True)
    out = {"source": SOURCE, "trained_with": embedder.model_name, "span": {}, "span_typed": {},
           "found": {}}
    spawn = multiprocessing.get_context("spawn")  # a fresh model per process, not a fork's
    with ProcessPoolExecutor(len(args.variant), mp_context=spawn) as pool:  # variants at once
        jobs = [(rows, near, which, started) for which in args.variant]
        for which, part in zip(args.variant, pool.map(train_variant, jobs)):
            for name, weights in part.items():
                out[name][which] = weights
    args.out.write_text(json.dumps(out, indent=0, sort_keys=True, ensure_ascii=False) + "\n",
                        encoding="utf-8")
    print(f"wrote {args.out} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
