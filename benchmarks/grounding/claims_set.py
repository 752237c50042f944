"""The labelled claims of the grounding benchmark, and how a checker's scores on them are judged.

A grounding checker reads (claim, passage) and says whether the passage supports the claim.
``claims.jsonl`` (README.md: sources, labels, how it is made) holds one claim per line:

    id        "c001" ... (hand-written, over the shared corpus), "s001" ... (from SQuAD training)
    source    "corpus:<collection>/<file>" or "squad-train:<article title>"
    question  the question the claim answers
    passage   the passage the claim is checked against (100-250 words)
    claim     one sentence, or a bold short answer ("**80 bytes**.")
    label     supported | unsupported (the passage does not say it) | contradicted (it says
              otherwise)
    error     for a supported claim how it was written (copy, paraphrase, partial, list,
              short_answer); otherwise the mistake (number, name, list_item, acronym, negation,
              invented_fact, wrong_entity, date)

A checker gives each claim a score, higher meaning "more supported"; at a threshold t it calls
a claim supported when its score is >= t. ``curve`` gives, at every threshold, the precision of
"supported" and the recall of both classes; ``summary_at`` the figures at one threshold, per
label and per error; ``auc`` the chance that a supported claim outscores a not-supported one.
``split`` halves the set by a hash of each id, so a threshold fitted on one half is judged on
the other. Unlike ``benchmarks/answers/question_set.py`` (questions for whole answers), these
rows pair one claim with one passage.
"""

from __future__ import annotations

import hashlib
import json
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

CLAIMS_FILE = Path(__file__).with_name("claims.jsonl")
LABELS = ("supported", "unsupported", "contradicted")
SUPPORTED_ERRORS = ("copy", "paraphrase", "partial", "list", "short_answer")
MISTAKES = ("number", "name", "list_item", "acronym", "negation", "invented_fact",
            "wrong_entity", "date")
_FIELDS = ("id", "source", "question", "passage", "claim", "label", "error")


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim, the passage it is checked against, and whether that passage supports it."""

    id: str
    source: str
    question: str
    passage: str
    claim: str
    label: str
    error: str

    @property
    def supported(self) -> bool:
        return self.label == "supported"

    @property
    def origin(self) -> str:
        """'corpus' or 'squad-train', the part of the set the claim belongs to."""
        return self.source.split(":", 1)[0]


@dataclass(frozen=True, slots=True)
class Summary:
    """A checker's figures at one threshold; recalls by label and by error are the share of
    those claims it judged correctly (supported ones kept, the others rejected)."""

    threshold: float
    precision_supported: float
    recall_supported: float
    recall_unsupported: float  # of every not-supported claim: unsupported and contradicted
    auc: float
    by_label: dict[str, float]
    by_error: dict[str, float]


def load_claims(path: Path = CLAIMS_FILE) -> list[Claim]:
    """The claims of ``path``; raises ValueError naming the line of a malformed row."""
    claims, seen = [], set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            claim = _claim(json.loads(line))
        except (json.JSONDecodeError, ValueError) as exc:
            raise ValueError(f"{path}:{number}: {exc}") from exc
        if claim.id in seen:
            raise ValueError(f"{path}:{number}: id {claim.id!r} is used twice; ids must be unique")
        seen.add(claim.id)
        claims.append(claim)
    return claims


def _claim(row: dict) -> Claim:
    missing = [f for f in _FIELDS if not isinstance(row.get(f), str) or not row[f].strip()]
    if missing:
        raise ValueError(f"fields {missing} are missing or empty; every row needs {list(_FIELDS)}")
    if row["label"] not in LABELS:
        raise ValueError(f"label {row['label']!r} is not one of {LABELS}")
    allowed = SUPPORTED_ERRORS if row["label"] == "supported" else MISTAKES
    if row["error"] not in allowed:
        raise ValueError(f"error {row['error']!r} of a {row['label']} claim is not one of "
                         f"{allowed}")
    if not row["source"].startswith(("corpus:", "squad-train:")):
        raise ValueError(f"source {row['source']!r} must start with 'corpus:' or 'squad-train:'")
    return Claim(**{f: row[f] for f in _FIELDS})


def curve(scores: Sequence[float], labels: Sequence[str]
          ) -> list[tuple[float, float, float, float]]:
    """(threshold, precision of supported, recall of supported, recall of not-supported) at each
    distinct score, highest first: at a threshold, the claims scoring at least that much are
    the ones called supported."""
    positives = _check(scores, labels)
    negatives = len(labels) - positives
    ranked = sorted(zip(scores, labels), key=lambda pair: -pair[0])
    points, kept, wrong, i = [], 0, 0, 0
    while i < len(ranked):
        threshold = ranked[i][0]
        while i < len(ranked) and ranked[i][0] == threshold:
            kept += ranked[i][1] == "supported"
            wrong += ranked[i][1] != "supported"
            i += 1
        points.append((threshold, kept / (kept + wrong), _ratio(kept, positives),
                       _ratio(negatives - wrong, negatives)))
    return points


def auc(scores: Sequence[float], labels: Sequence[str]) -> float:
    """The chance that a random supported claim outscores a random not-supported one (ties
    count half): the area under the ROC curve."""
    _check(scores, labels)
    good = [s for s, label in zip(scores, labels) if label == "supported"]
    bad = sorted(s for s, label in zip(scores, labels) if label != "supported")
    if not good or not bad:
        raise ValueError("auc needs at least one supported and one not-supported claim")
    wins = sum(bisect_left(bad, s) + 0.5 * (bisect_right(bad, s) - bisect_left(bad, s))
               for s in good)
    return wins / (len(good) * len(bad))


def summary_at(threshold: float, scores: Sequence[float], labels: Sequence[str],
               errors: Sequence[str] | None = None) -> Summary:
    """The figures of a checker that calls a claim supported when its score is >= threshold;
    ``errors`` (the claims' error fields) adds the recall per error. With no claim called
    supported, precision counts as 1."""
    _check(scores, labels)
    said = [s >= threshold for s in scores]
    right = [yes == (label == "supported") for yes, label in zip(said, labels)]
    kept = sum(yes and label == "supported" for yes, label in zip(said, labels))
    called = sum(said)
    by_label = _share(labels, right)
    not_supported = [r for r, label in zip(right, labels) if label != "supported"]
    return Summary(threshold=threshold,
                   precision_supported=_ratio(kept, called),
                   recall_supported=by_label.get("supported", 1.0),
                   recall_unsupported=_ratio(sum(not_supported), len(not_supported)),
                   auc=auc(scores, labels), by_label=by_label,
                   by_error=_share(errors, right) if errors is not None else {})


def split(claims: Sequence[Claim]) -> tuple[list[Claim], list[Claim]]:
    """(fit, judge): each claim falls in one half by a hash of its id, the same on every run and
    unchanged when claims are added; both halves hold corpus and SQuAD claims."""
    fit, judge = [], []
    for claim in claims:
        digest = hashlib.sha256(claim.id.encode("utf-8")).digest()
        (fit if digest[0] % 2 == 0 else judge).append(claim)
    return fit, judge


def _check(scores: Sequence[float], labels: Sequence[str]) -> int:
    if len(scores) != len(labels):
        raise ValueError(f"{len(scores)} scores for {len(labels)} labels: give one score a claim")
    unknown = set(labels) - set(LABELS)
    if unknown:
        raise ValueError(f"labels {sorted(unknown)} are not among {LABELS}")
    return sum(label == "supported" for label in labels)


def _ratio(part: int, whole: int) -> float:
    return part / whole if whole else 1.0


def _share(keys: Sequence[str], right: Sequence[bool]) -> dict[str, float]:
    totals, hits = Counter(keys), Counter(k for k, r in zip(keys, right) if r)
    return {key: hits[key] / totals[key] for key in sorted(totals)}
