"""Fit the grounding verdict's weights on the labelled claims' fit half; judge on the other half.

    python -m benchmarks.grounding.fit            # fit, then print the judge half's curve
    python -m benchmarks.grounding.fit --judge    # judge the shipped weights only

Each claim (``claims.jsonl``) is checked against its passage by ``ragcore.grounding``: its
sentences' features against every sentence window of the passage (``verdict.claim_features``),
the window the current weights like best, the claim's score the lowest of its sentences'. A
logistic regression (scipy L-BFGS, a little L2) over those features is fitted twice, with the
index's default embedding model (cosine) and without one (the lexical path), and each threshold
is the lowest at which at least ``RECALL`` of the not-supported claims of the fit half are
caught (precision of "supported" at 95 % would leave a fifth of right claims supported).
The judge half, which the fit never saw, gives the figures the README and the closing note
report; ``--judge`` prints them for the weights shipped in ``ragcore/grounding/verdict.py``.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Sequence

import numpy as np

from benchmarks.grounding.claims_set import Claim, curve, load_claims, split, summary_at
from ragcore.grounding import WEIGHTS, Weights, check_claims, claims_of
from ragcore.grounding.verdict import FEATURES

RECALL = 0.90  # of invented or contradicted claims caught: the target


def scored(claims: Sequence[Claim], weights: Weights, embedder: Any) -> tuple[list, list]:
    """Per claim: its score under ``weights`` and the features of its weakest sentence."""
    scores, rows = [], []
    for claim in claims:
        parts = claims_of(claim.claim) or claims_of(claim.claim, min_terms=0)
        checks = check_claims(parts, [claim.passage], embedder=embedder, weights=weights,
                              question=claim.question)
        weakest = min(checks, key=lambda c: c.score)
        scores.append(weakest.score)
        rows.append(weakest.features)
    return scores, rows


def fit(rows: list[dict], labels: list[str], with_cosine: bool) -> np.ndarray:
    from scipy.optimize import minimize

    names = FEATURES if with_cosine else FEATURES[:-1]
    x = np.array([[1.0, *(r.get(n, 0.0) for n in names)] for r in rows])
    y = np.array([label == "supported" for label in labels], dtype=float)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = np.clip(x @ w, -30, 30)
        p = 1 / (1 + np.exp(-z))
        value = -np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9))
        value += 0.0005 * float(w[1:] @ w[1:])
        grad = x.T @ (p - y) / len(y) + 0.001 * np.r_[0.0, w[1:]]
        return value, grad

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


def threshold_for(scores: list[float], labels: list[str]) -> float:
    """The lowest threshold whose recall of not-supported claims is at least ``RECALL``
    (precision of "supported" then as high as these features allow: the judge half says)."""
    chosen = 1.0
    for t, _, _, recall_unsupported in curve(scores, labels):
        if recall_unsupported < RECALL:
            break
        chosen = t
    return chosen


def report(name: str, scores: list[float], labels: list[str], errors: list[str],
           threshold: float) -> None:
    summary = summary_at(threshold, scores, labels, errors)
    print(f"{name}: threshold {threshold:.3f}, precision of supported "
          f"{summary.precision_supported:.3f}, recall of supported {summary.recall_supported:.3f}"
          f", recall of not supported {summary.recall_unsupported:.3f}, AUC {summary.auc:.3f}")
    print("  right, by label: " + ", ".join(f"{k} {v:.2f}" for k, v in summary.by_label.items()))
    print("  right, by error: " + ", ".join(f"{k} {v:.2f}" for k, v in summary.by_error.items()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="store_true", help="judge the shipped weights only")
    args = parser.parse_args()
    from ragcore.embeddings.packaged import default_embedder

    embedder = default_embedder()
    fitting, judging = split(load_claims())
    judged = [c.label for c in judging]
    errors = [c.error for c in judging]
    weights = WEIGHTS
    if not args.judge:
        labels = [c.label for c in fitting]
        for _ in range(2):  # the best window depends on the weights: refit once on the new pick
            _, lexical_rows = scored(fitting, weights, None)
            _, meaning_rows = scored(fitting, weights, embedder)
            lexical, meaning = fit(lexical_rows, labels, False), fit(meaning_rows, labels, True)
            weights = dataclasses.replace(weights, lexical=tuple(np.round(lexical, 3)),
                                          meaning=tuple(np.round(meaning, 3)))
        lexical_scores, _ = scored(fitting, weights, None)
        meaning_scores, _ = scored(fitting, weights, embedder)
        weights = dataclasses.replace(
            weights, lexical_threshold=round(threshold_for(lexical_scores, labels), 3),
            meaning_threshold=round(threshold_for(meaning_scores, labels), 3))
        print(f"fitted on {len(fitting)} claims: {weights}")
    scores, _ = scored(judging, weights, embedder)
    report("judge half, with the embedding model", scores, judged, errors,
           weights.meaning_threshold)
    lexical_scores, _ = scored(judging, weights, None)
    report("judge half, lexical only", lexical_scores, judged, errors, weights.lexical_threshold)
    print("curve (judge half, with the model): threshold precision recall_supported "
          "recall_unsupported")
    for t, precision, recall_s, recall_u in curve(scores, judged)[:: max(1, len(judged) // 20)]:
        print(f"  {t:.3f} {precision:.3f} {recall_s:.3f} {recall_u:.3f}")


if __name__ == "__main__":
    main()
