"""Train the offline answerer's span and answer models; write ragcore/llms/extractive_weights.json.

Data: SQuAD's **training** split only — the training articles of
``benchmarks/answers/squad/train.json`` (SQuAD 2.0) and ``train_extra.json`` (four more articles of
SQuAD 1.1's training split; source, licence and the article split are written in
``benchmarks/answers/squad/README.md``; the held-out articles judge the result in
``python -m benchmarks --only answers`` and are never read here). Each question goes through
the default query engine over an index of the training paragraphs (``answerer_contexts``), so
the models learn from the passages a user's question really brings.

- Span model (conditional logit, L2): the phrases of a question's best sentences compete; a
  phrase is right when its normalized text equals a gold answer's (the SQuAD normalization).
  Questions whose best sentences hold no gold phrase teach it nothing and are left out.
- Second stage (semantic variant only: it compares meanings): the same conditional logit over
  the first stage's best ``TYPED_CANDIDATES`` phrases of each question, with the cosine between
  each phrase and the question's type words as features (``extractive_model.typed_rows``).
- Answer model (logistic regression, L2): positive when the passages given hold a gold answer,
  negative for SQuAD's unanswerable questions, for questions whose passages lack every gold
  answer, and for off-topic questions (a third of the questions, each given the passages of a
  question about another article: what a user asks of documents that do not cover it), and
  near misses (every third answerable question with a number or name changed to one its
  passages do not hold, as SQuAD 2.0's unanswerable questions were written). Its threshold is
  set on the training questions so that at most ``FALSE_NOT_FOUND`` of the positives fall
  under it. Near misses teach the semantic variant only: the lexical one, reading words
  alone, learned from them to accept questions most of whose words no passage holds.

    python -m benchmarks.train_answerer            # ~10 min on 2 cores, first run embeds

The passages and the sentence vectors are cached per packaged model variant (int8, float32).
"""

from __future__ import annotations

import json
import random
import re
import string
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from benchmarks.answerer_contexts import CACHE_DIR, CachedEmbedder, build_contexts

ROOT = Path(__file__).resolve().parents[1]
SQUAD = ROOT / "benchmarks" / "answers" / "squad"
TRAIN_FILES = (SQUAD / "train.json", SQUAD / "train_extra.json")
WEIGHTS = ROOT / "ragcore" / "llms" / "extractive_weights.json"
MIN_COUNT = 3  # features seen fewer times are left out
L2_SPAN = 1.0
L2_FOUND = 1.0
FALSE_NOT_FOUND = 0.04
OFF_TOPIC_SEED, OFF_TOPIC_POOL = 19, 300
NEAR_MISS_SEED = 20
_NUMBER = re.compile(r"\b\d{2,4}\b")
_NAME = re.compile(r"\b[A-Z][a-z]{2,}\b")
SOURCE = ("SQuAD 2.0 training split (Rajpurkar, Jia & Liang 2018, CC BY-SA 4.0), training "
          "articles of benchmarks/answers/squad/train.json, and four articles of SQuAD 1.1's "
          "training split (Rajpurkar et al. 2016, CC BY-SA 4.0) in train_extra.json")


def normalize(text: str) -> str:
    """SQuAD's answer normalization: lower case, no punctuation, articles or extra spaces."""
    text = "".join(ch for ch in text.lower() if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def examples(rows: list[dict], embedder, which: str) -> list[tuple]:
    """Each question read over its passages: the reading, each phrase's text, the gold
    answers, and whether the passages hold one."""
    from ragcore.llms.extractive_answer import strip_labels
    from ragcore.llms.extractive_model import phrase_texts, read
    from ragcore.llms.extractive_question import without_source_words
    from ragcore.llms.extractive_rank import Scorer
    from ragcore.llms.extractive_text import candidates

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
        out.append((reading, phrase_texts(reading, cands), golds, holds, question))
    return out


def span_sets(readings: list[tuple], rows_of) -> list[tuple]:
    """Span examples: each answered question's phrases (``rows_of`` gives the rows and their
    texts) with which are right; questions whose phrases hold no gold answer teach nothing."""
    out = []
    for reading, texts, golds, holds, question in readings:
        rows, row_texts = rows_of(reading, texts, question)
        labels = [normalize(t) in golds for t in row_texts]
        if holds and any(labels):
            out.append(([f for *_, f in rows], labels))
    return out


def first_stage(reading, texts: list[str], question: str) -> tuple[list, list[str]]:
    """``rows_of`` for the first stage: every phrase of the best sentences."""
    return reading.rows, texts


def typed(span_weights: dict[str, float], embedder):
    """``rows_of`` for the second stage: the first stage's best phrases with their type
    similarity (``extractive_model.typed_rows``)."""
    from ragcore.llms.extractive_model import typed_rows

    def rows_of(reading, texts, question):
        if not reading.rows:
            return [], []
        top, rows = typed_rows(reading.rows, texts, span_weights, question,
                               reading.kind or "none", embedder.embed_batch)
        return rows, [texts[i] for i in top]
    return rows_of


def off_topic(rows: list[dict]) -> list[dict]:
    """Questions the documents do not cover at all, as users ask them: every third question
    with the passages retrieved for the question of another article that shares the most of
    its words (SQuAD's own unanswerable questions are all about the paragraph at hand)."""
    from ragcore.search.lexical import terms

    rng = random.Random(OFF_TOPIC_SEED)
    bags = [set(terms(r["question"])) for r in rows]
    out = []
    for i in range(0, len(rows), 3):
        others = [j for j in rng.sample(range(len(rows)), OFF_TOPIC_POOL)
                  if rows[j]["title"] != rows[i]["title"]]
        if not others:
            continue
        j = max(others, key=lambda j: len(bags[i] & bags[j]) / (len(bags[i] | bags[j]) or 1))
        out.append({**rows[i], "context": rows[j]["context"], "impossible": True,
                    "id": f"{rows[i]['id']}-off-topic"})
    return out


def near_misses(rows: list[dict]) -> list[dict]:
    """Questions the passages almost answer, as SQuAD 2.0's unanswerable ones are made: every
    third answerable question with one of its numbers or names changed to one the passages do
    not hold ("... hacked in November 2004?" of a passage on November 2014, "... in
    Australia?" of one on Austria), given the passages of the question as asked."""
    rng = random.Random(NEAR_MISS_SEED)
    names = sorted({w for r in rows for w in _NAME.findall(r["question"])[1:]})
    out = []
    for row in rows[::3]:
        if row["impossible"]:
            continue
        changed = _changed(row, names, rng)
        if changed:
            out.append({**row, "question": changed, "asked": changed, "impossible": True,
                        "id": f"{row['id']}-near-miss"})
    return out


def _changed(row: dict, names: list[str], rng: random.Random) -> str | None:
    """``row``'s question with a number or a name its passages do not hold, or None."""
    question, context = row["question"], row["context"]
    numbers = [m for m in _NUMBER.finditer(question)]
    if numbers:
        m = rng.choice(numbers)
        for _ in range(10):
            digits = list(m.group())
            k = rng.randrange(len(digits))
            digits[k] = rng.choice([d for d in "0123456789" if d != digits[k]])
            new = "".join(digits)
            if new[0] != "0" and new not in context:
                return question[: m.start()] + new + question[m.end():]
    own = [m for m in _NAME.finditer(question) if m.start() > 0]
    if own and names:
        m = rng.choice(own)
        for _ in range(10):
            new = rng.choice(names)
            if new not in context and new.lower() not in question.lower():
                return question[: m.start()] + new + question[m.end():]
    return None


def vocabulary(feature_dicts) -> dict[str, int]:
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
    """Conditional logit over each question's phrases, L2-regularized, by L-BFGS."""
    flat = [f for feats, _ in span_sets for f in feats]
    vocab = vocabulary(flat)
    x = matrix(flat, vocab)
    y = np.array([float(l) for _, labels in span_sets for l in labels])
    starts = np.cumsum([0] + [len(feats) for feats, _ in span_sets])[:-1]
    group = np.repeat(np.arange(len(span_sets)), [len(feats) for feats, _ in span_sets])

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


def train_found(readings: list[tuple], span_weights, rows_of) -> dict:
    """Logistic regression on whether the passages answer, and its calibrated threshold. The
    weights of what the passages leave out of the question (``missing_*``) are kept at or
    under 0: more of the question unmentioned never makes an answer likelier."""
    from ragcore.llms.extractive_model import answer_features, best_phrase

    feats, labels = [], []
    for reading, texts, _, holds, question in readings:
        won = best_phrase(rows_of(reading, texts, question)[0], span_weights)
        feats.append(answer_features(reading, None if won is None else won[1:]))
        labels.append(float(holds))
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
    abstains = float(np.mean(p[y == 0] < threshold)) if (y == 0).any() else 0.0
    print(f"  answer model: {int(y.sum())} answered, {int((1 - y).sum())} not; threshold "
          f"{threshold:.3f} keeps {1 - FALSE_NOT_FOUND:.0%} of answered and refuses "
          f"{abstains:.0%} of the rest (training questions)")
    return {"weights": {name: round(float(w[k]), 5) for name, k in vocab.items()},
            "threshold": round(threshold, 4)}


def main() -> int:
    from ragcore.embeddings.packaged import default_embedder

    started = time.perf_counter()
    articles = [article for path in TRAIN_FILES
                for article in json.loads(path.read_text(encoding="utf-8"))["data"]]
    model = default_embedder()
    # one cache per model: vectors of two variants (float32, int8) must never mix
    embedder = CachedEmbedder(model, CACHE_DIR / f"answerer-vectors-{model.model_name}.npy")
    rows = build_contexts(articles, embedder, name=f"squad-train-{model.model_name}")
    near = near_misses(rows)
    rows += off_topic(rows)
    print(f"{len(rows)} training questions, off-topic ones included, and {len(near)} near "
          f"misses ({time.perf_counter() - started:.0f} s)")
    out = {"source": SOURCE, "trained_with": embedder.model_name, "span": {}, "span_typed": {},
           "found": {}}
    for which in ("semantic", "lexical"):
        readings = examples(rows + near * (which == "semantic"), embedder, which)
        embedder.save()
        rows_of = first_stage
        weights = out["span"][which] = train_spans(span_sets(readings, rows_of))
        print(f"{which}: first stage trained on {len(readings)} questions "
              f"({time.perf_counter() - started:.0f} s)")
        if which == "semantic":  # the second stage compares meanings: the model's alone
            rows_of = typed(weights, embedder)
            weights = out["span_typed"][which] = train_spans(span_sets(readings, rows_of))
            print(f"{which}: second stage trained ({time.perf_counter() - started:.0f} s)")
        out["found"][which] = train_found(readings, weights, rows_of)
    WEIGHTS.write_text(json.dumps(out, indent=0, sort_keys=True, ensure_ascii=False) + "\n",
                       encoding="utf-8")
    print(f"wrote {WEIGHTS} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
