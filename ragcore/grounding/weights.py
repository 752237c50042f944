"""The verdict's weights: the logistic combination of a claim's features that gives the chance
it is supported, one for each way it is read (words alone, with the index's embedder, with the
packaged model's "Yes" asked afresh or in the answer's own prompt), with the thresholds from
which a claim is vouched for and below which it is taken for invented.

``benchmarks/grounding/fit.py`` fits them on the fit half of the labelled claims and judges them
on the other half; ``verdict`` reads claims with them (its docstring names the features).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

FEATURES = ("coverage", "missing", "elsewhere", "negation", "binding", "agrees", "cosine")


@dataclass(frozen=True, slots=True)
class Weights:
    """Two logistic models of "supported", one per path: ``lexical`` (bias, coverage, missing,
    elsewhere, negation) when no embedder is given, ``meaning`` (the same, then cosine) with
    one; each with the threshold on its chance from which a claim is supported."""

    lexical: tuple[float, ...]
    meaning: tuple[float, ...]
    lexical_threshold: float
    meaning_threshold: float
    refute_threshold: float = 0.05  # below it (either path) a claim is taken for invented
    # With the packaged model as judge (``judge.py``): bias, the lexical features, then the
    # log-odds of its "Yes"; a claim is vouched for from ``judged_threshold``, refuted below
    # ``judged_refute``.
    judged: tuple[float, ...] = ()
    judged_threshold: float = 1.0
    judged_refute: float = 0.0
    # The same with the judge asked in the prompt that wrote the answer (``judge.IN_PROMPT``);
    # empty: its "Yes" is weighed as the window judge's.
    in_prompt: tuple[float, ...] = ()
    in_prompt_threshold: float = 1.0
    in_prompt_refute: float = 0.0

    def threshold(self, with_meaning: bool) -> float:
        return self.meaning_threshold if with_meaning else self.lexical_threshold


# Fitted by benchmarks/grounding/fit.py on the fit half of the labelled claims (211 of 440): a
# claim is vouched for from the chance at which "supported" was right 95 % of the time there,
# refuted below the chance under which at most 2 % more right claims fall. What each path does
# on the judge half, as claims are read today (the weights unchanged since their fit), is in
# benchmarks/grounding/README.md: in the answer's prompt 92 % of vouched-for claims are right,
# asked afresh 96 %.
WEIGHTS = Weights(lexical=(-4.066, 4.513, -0.465, 0.221, -1.148, 1.526, 0.697),
                  meaning=(-4.988, 4.605, -0.253, -0.124, -1.135, 1.399, 0.848, 1.47),
                  lexical_threshold=0.771, meaning_threshold=0.709, refute_threshold=0.092,
                  judged=(-4.321, 3.182, -0.843, 1.055, -0.209, 1.678, 0.738, 1.11),
                  judged_threshold=0.815, judged_refute=0.191,
                  in_prompt=(-3.857, 4.161, -0.768, 0.85, -0.604, 1.628, 0.582, 1.865),
                  in_prompt_threshold=0.793, in_prompt_refute=0.133)


def support_chance(features: dict[str, float], weights: Weights = WEIGHTS) -> float:
    """The logistic chance that a claim with ``features`` is supported."""
    with_meaning = "cosine" in features
    if "in_prompt" in features and weights.in_prompt:
        bias, *w = weights.in_prompt
        names = (*FEATURES[:-1], "in_prompt")
    elif "judge" in features and weights.judged:
        bias, *w = weights.judged
        names = (*FEATURES[:-1], "judge")
    else:
        bias, *w = weights.meaning if with_meaning else weights.lexical
        names = FEATURES if with_meaning else FEATURES[:-1]
    z = bias + sum(wi * features[name] for wi, name in zip(w, names))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


def logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))
