"""Fit the grounding verdict's weights on the labelled claims' fit half; judge on the other half.

    python -m benchmarks.grounding.fit            # fit, then print the judge half's figures
    python -m benchmarks.grounding.fit --judge    # judge the shipped weights only

Each claim (``claims.jsonl``) is checked against its passage by ``ragcore.grounding``: its
sentences' features against every sentence window of the passage (``verdict.claim_features``),
the window the current weights like best, the claim's score the lowest of its sentences'. A
logistic regression (scipy L-BFGS, a little L2) over those features is fitted twice, with the
index's default embedding model (cosine) and without one (the lexical path). Two thresholds
follow, on the fit half: a claim is vouched for from the lowest chance at which "supported" is
right at least ``PRECISION`` of the time; it is refuted (taken for invented) when it states a
fact no passage states or its chance is below the highest threshold that refutes at most
``FALSE_REFUTED`` more of the right claims. Between the two it is unverified. The judge half, which
the fit never saw, gives the figures the README and the closing note report.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Sequence

import numpy as np

from benchmarks.grounding.claims_set import Claim, auc, curve, load_claims, split
from ragcore.grounding import WEIGHTS, Weights, check_claims, claims_of
from ragcore.grounding.weights import FEATURES, logit

JUDGE_ROWS = __import__("pathlib").Path(__file__).with_name("judge_llm_rows.jsonl")
# The judge asked in the answer's own prompt (``judge_llm.py --in-prompt``).
IN_PROMPT_ROWS = JUDGE_ROWS.with_name("judge_llm_in_prompt_rows.jsonl")
# Each way the packaged model judges: its feature, its rows, its ``Weights`` field (thresholds
# ``<field>_threshold`` and ``<field>_refute``) and how the report names it.
JUDGES = (
    ("judge", JUDGE_ROWS, "judged", "with the packaged model as judge"),
    ("in_prompt", IN_PROMPT_ROWS, "in_prompt", "the packaged model judging in the answer's prompt"),
)

PRECISION = 0.95  # of what is vouched for: the target
FALSE_REFUTED = 0.02  # of right claims taken for invented by their chance alone, at most


def scored(claims: Sequence[Claim], weights: Weights, embedder: Any) -> list[tuple]:
    """Per claim: (score, features, refuted) of its weakest sentence under ``weights``."""
    rows = []
    for claim in claims:
        parts = claims_of(claim.claim) or claims_of(claim.claim, min_terms=0)
        checks = check_claims(parts, [claim.passage], embedder=embedder, weights=weights,
                              question=claim.question)
        weakest = min(checks, key=lambda c: c.score)
        rows.append((weakest.score, weakest.features, any(c.missing or c.displaced for c in checks)))
    return rows


def judged_rows(rows: list[tuple], claims: Sequence[Claim], p_yes: dict[str, float],
                feature: str = "judge") -> list[tuple]:
    """``rows`` (lexical) with the judge's "Yes" (``judge_llm.py``) as the feature ``feature``
    ("judge", or "in_prompt" for the judge asked in the answer's prompt), and the judged model's score under
    ``WEIGHTS`` left to ``rescore``."""
    out = []
    for (score, features, missing), claim in zip(rows, claims):
        judged = {k: v for k, v in features.items() if k != "cosine"}
        judged[feature] = logit(p_yes[claim.id])
        out.append((score, judged, missing))
    return out


def asked_as_shipped(judged: list[tuple], meaning: list[tuple], weights: Weights
                     ) -> list[tuple]:
    """``judged`` rows where the verdict asks the judge; elsewhere the embedder's decision: a
    claim it scores ``SURE_WITHOUT_JUDGE`` or more is vouched for (score 1), one below the
    refute threshold refuted (score 0), as ``verdict._check`` does."""
    from ragcore.grounding.verdict import SURE_WITHOUT_JUDGE

    out = []
    for row, (score, _, missing) in zip(judged, meaning):
        if not missing and score >= SURE_WITHOUT_JUDGE:
            row = (1.0, row[1], row[2])
        elif not missing and score < weights.refute_threshold:
            row = (0.0, row[1], row[2])
        out.append(row)
    return out


def rescore(rows: list[tuple], weights: Weights) -> list[tuple]:
    from ragcore.grounding.weights import support_chance

    return [(support_chance(f, weights), f, m) for _, f, m in rows]


def fit(rows: list[dict], labels: list[str], with_cosine: bool,
        names: Sequence[str] | None = None) -> np.ndarray:
    from scipy.optimize import minimize

    names = names or (FEATURES if with_cosine else FEATURES[:-1])
    x = np.array([[1.0, *(r.get(n, 0.0) for n in names)] for r in rows])
    y = np.array([label == "supported" for label in labels], dtype=float)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        value = -np.mean(y * np.log(p + 1e-9) + (1 - y) * np.log(1 - p + 1e-9))
        value += 0.0005 * float(w[1:] @ w[1:])
        grad = x.T @ (p - y) / len(y) + 0.001 * np.r_[0.0, w[1:]]
        return value, grad

    return minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x


def vouch_threshold(scores: list[float], labels: list[str]) -> float:
    """The lowest threshold at which "supported" is right at least ``PRECISION`` of the time,
    every higher one too."""
    chosen = 1.0
    for t, precision, _, _ in curve(scores, labels):  # highest threshold first
        if precision < PRECISION:
            break
        chosen = t
    return chosen


def refute_threshold(rows: list[tuple], labels: list[str]) -> float:
    """The highest threshold below which at most ``FALSE_REFUTED`` of the right claims fall,
    beyond those a fact no passage states refutes anyway."""
    right = [score for (score, _, missing), label in zip(rows, labels)
             if label == "supported" and not missing]
    total = sum(label == "supported" for label in labels)
    best = 0.0
    for t in sorted({round(s, 3) for s in right}):
        if sum(score < t for score in right) / total > FALSE_REFUTED:
            break
        best = t
    return best


def report(name: str, rows: list[tuple], claims: list[Claim], weights: Weights,
           with_meaning: bool) -> None:
    vouch = weights.threshold(with_meaning)
    # A claim stating a fact no passage states is never vouched for (``verdict._check``).
    vouched_for = [s >= vouch and not m for s, _, m in rows]
    said = [(v, not v and (m or s < weights.refute_threshold))
            for v, (s, _, m) in zip(vouched_for, rows)]
    labels = [c.label for c in claims]

    def share(label: str, which: int) -> float:
        picked = [said[i][which] for i, lab in enumerate(labels) if lab == label]
        return sum(picked) / max(1, len(picked))

    vouched = [lab for (yes, _), lab in zip(said, labels) if yes]
    precision = sum(lab == "supported" for lab in vouched) / max(1, len(vouched))
    print(f"{name}: vouched from {vouch:.3f}, refuted below {weights.refute_threshold:.3f} or "
          f"with a fact no passage states")
    print(f"  precision of vouched-for {precision:.3f} ({len(vouched)} claims); right claims "
          f"vouched for {share('supported', 0):.1%}, refuted {share('supported', 1):.1%}")
    print(f"  refuted: invented (unsupported) {share('unsupported', 1):.1%}, contradicted "
          f"{share('contradicted', 1):.1%}; AUC {auc([r[0] for r in rows], labels):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", action="store_true", help="judge the shipped weights only")
    args = parser.parse_args()
    from ragcore.embeddings.packaged import default_embedder

    embedder = default_embedder()
    fitting, judging = split(load_claims())
    weights = WEIGHTS
    if not args.judge:
        labels = [c.label for c in fitting]
        for _ in range(2):  # the best window depends on the weights: refit once on the new pick
            lexical = fit([r[1] for r in scored(fitting, weights, None)], labels, False)
            meaning = fit([r[1] for r in scored(fitting, weights, embedder)], labels, True)
            weights = dataclasses.replace(weights, lexical=tuple(np.round(lexical, 3).tolist()),
                                          meaning=tuple(np.round(meaning, 3).tolist()))
        lexical_rows = scored(fitting, weights, None)
        meaning_rows = scored(fitting, weights, embedder)
        weights = dataclasses.replace(
            weights,
            lexical_threshold=round(vouch_threshold([r[0] for r in lexical_rows], labels), 3),
            meaning_threshold=round(vouch_threshold([r[0] for r in meaning_rows], labels), 3),
            refute_threshold=round(min(refute_threshold(lexical_rows, labels),
                                       refute_threshold(meaning_rows, labels)), 3))
        for feature, rows_file, field, _ in JUDGES:
            weights = _fitted_judge(weights, lexical_rows, fitting, labels, feature,
                                    _p_yes(rows_file), field)
        print(f"fitted on {len(fitting)} claims: {weights}")
    meaning = scored(judging, weights, embedder)  # reported, and where the judge is not asked
    report("judge half, with the embedding model", meaning, judging, weights, True)
    lexical = scored(judging, weights, None)
    report("judge half, lexical only", lexical, judging, weights, False)
    for feature, rows_file, field, name in JUDGES:
        p_yes = _p_yes(rows_file)
        if getattr(weights, field) and all(c.id in p_yes for c in judging):
            rows = asked_as_shipped(rescore(judged_rows(lexical, judging, p_yes, feature),
                                            weights), meaning, weights)
            report(f"judge half, {name}", rows, judging, dataclasses.replace(
                weights, lexical_threshold=getattr(weights, f"{field}_threshold"),
                refute_threshold=getattr(weights, f"{field}_refute")), False)


def _fitted_judge(weights: Weights, lexical_rows: list[tuple], fitting: Sequence[Claim],
                  labels: list[str], feature: str, p_yes: dict[str, float],
                  field: str) -> Weights:
    """``weights`` with one judge's weights fitted (its "Yes" as ``feature``, beside the lexical
    features), and its thresholds by the same rules; unchanged without its rows."""
    if not p_yes or not all(c.id in p_yes for c in fitting):
        return weights
    rows = judged_rows(lexical_rows, fitting, p_yes, feature)
    coefficients = fit([r[1] for r in rows], labels, False, (*FEATURES[:-1], feature))
    weights = dataclasses.replace(weights, **{field: tuple(np.round(coefficients, 3).tolist())})
    rows = rescore(rows, weights)
    return dataclasses.replace(weights, **{
        f"{field}_threshold": round(vouch_threshold([r[0] for r in rows], labels), 3),
        f"{field}_refute": round(refute_threshold(rows, labels), 3)})


def _p_yes(rows=JUDGE_ROWS) -> dict[str, float]:
    import json

    if not rows.exists():
        return {}
    return {r["id"]: r["p_yes"] for r in map(json.loads, rows.read_text().splitlines())}


if __name__ == "__main__":
    main()
