"""The not-found gate offline: fit it on calibration signals, apply it, sweep its threshold.

``squad_local.py`` records, per question, the packaged model's answer with the gate never
refusing (threshold 1) and the gate's signals; everything here reads those jsonl rows, so a
threshold or a weight is tried without the model. Applying a gate to a row is exactly what the
engine does: its answer becomes ``not_found.refusal(question, passages)`` when the gate refuses,
else the model's answer as recorded (nudged to answer where its first token was "Not").

    python -m benchmarks.answers.gate_sweep ROWS.jsonl [--fit CALIBRATION.jsonl]
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Sequence

import numpy as np

from ragcore.synthesis.not_found import GateSignals, NotFoundGate, refusal

from .answer_measures import Record, says_not_found

SWEEP = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
FALSE_REFUSAL_TARGET = 0.04  # on the calibration answerable questions: 5 % leaves ~1 point


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def signals_of(row: dict) -> GateSignals:
    return GateSignals(**row["signals"])


def gated_answer(row: dict, gate: NotFoundGate) -> str:
    """The local model's reply as the engine gives it with ``gate``."""
    if gate.score(signals_of(row)) >= gate.threshold and gate.threshold < 1.0:
        return refusal(row["question"], row["passages"])
    return row["answer"]


def refuses(row: dict, gate: NotFoundGate) -> bool:
    """Whether the reply says "not found": the gate's refusal, or (rarely, after the nudge) the
    model's own; rows without an answer (calibration: signals only) count the gate's alone."""
    if gate.threshold < 1.0 and gate.score(signals_of(row)) >= gate.threshold:
        return True
    return row.get("answer") is not None and says_not_found(row["answer"])


def records(rows: Sequence[dict], gate: NotFoundGate, *, answerer: str = "local") -> list[Record]:
    """``answer_measures.Record``s of the local model's gated answers (or the extractive's)."""
    out = []
    for row in rows:
        answer = gated_answer(row, gate) if answerer == "local" else row["extractive_answer"]
        seconds = row["seconds"] if answerer == "local" else row["extractive_seconds"]
        out.append(Record(row["id"], row["question"], row["golds"], answer,
                          row["passages"] if answerer == "local" else row["extractive_passages"],
                          row["retrieved"] if answerer == "local" else row["extractive_retrieved"],
                          seconds))
    return out


def trade_off(rows: Sequence[dict], weights: tuple[float, float, float],
              thresholds: Sequence[float] = SWEEP) -> list[tuple[float, float, float]]:
    """(threshold, "not found" on unanswerable %, false "not found" on answerable %)."""
    out = []
    for t in thresholds:
        gate = NotFoundGate(weights=weights, threshold=t)
        bad = [refuses(r, gate) for r in rows if not r["golds"]]
        good = [refuses(r, gate) for r in rows if r["golds"]]
        out.append((t, 100 * np.mean(bad), 100 * np.mean(good)))
    return out


def fit_weights(rows: Sequence[dict], *, l2: float = 0.1) -> tuple[float, float, float]:
    """Logistic regression of "unanswerable" on the two signals' log-odds (Newton steps)."""
    x = np.array([[1.0, _logit(r["signals"]["p_not_found"]), _logit(r["signals"]["p_no"])]
                  for r in rows])
    y = np.array([0.0 if r["golds"] else 1.0 for r in rows])
    w = np.zeros(3)
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(3)
        w -= np.linalg.solve(hess, grad)
    return tuple(round(float(v), 3) for v in w)


def fit_threshold(rows: Sequence[dict], weights: tuple[float, float, float],
                  target: float = FALSE_REFUSAL_TARGET) -> float:
    """The lowest threshold (step 0.01) whose false "not found" on the answerable rows stays
    within ``target``."""
    for t in np.arange(0.01, 1.0, 0.01):
        gate = NotFoundGate(weights=weights, threshold=round(float(t), 2))
        if np.mean([refuses(r, gate) for r in rows if r["golds"]]) <= target:
            return round(float(t), 2)
    return 1.0


def auc(rows: Sequence[dict], key) -> float:
    """The chance (%) that an unanswerable row's ``key`` beats an answerable one's."""
    bad = [key(r) for r in rows if not r["golds"]]
    good = [key(r) for r in rows if r["golds"]]
    wins = [(b > g) + 0.5 * (b == g) for b in bad for g in good]
    return 100 * float(np.mean(wins)) if wins else float("nan")


def signal_aucs(rows: Sequence[dict], gate: NotFoundGate) -> dict[str, float]:
    """How well each signal alone, and the gate's score, tells unanswerable rows apart."""
    keys = {
        "p_not_found (first token 'Not')": lambda r: r["signals"]["p_not_found"],
        "p_no (check pass)": lambda r: r["signals"]["p_no"],
        "gate score (both)": lambda r: gate.score(signals_of(r)),
        "retrieval: top passage score (lower)": lambda r: -(r.get("top_score") or 0.0),
        "extractive answer score (lower)": lambda r: -(r.get("extractive_score") or 0.0),
    }
    return {name: auc(rows, key) for name, key in keys.items()}


def curve_table(points: Sequence[tuple[float, float, float]], marked: float) -> str:
    lines = ["| threshold | 'not found' on unanswerable | false 'not found' on answerable |",
             "|---|---|---|"]
    for t, bad, good in points:
        mark = " (shipped)" if math.isclose(t, marked) else ""
        lines.append(f"| {t:.2f}{mark} | {bad:.1f} % | {good:.1f} % |")
    return "\n".join(lines)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--fit", type=Path, help="calibration rows to fit weights and threshold")
    args = parser.parse_args(argv)
    rows = read_rows(args.rows)
    gate = NotFoundGate()
    if args.fit:
        calibration = read_rows(args.fit)
        weights = fit_weights(calibration)
        gate = NotFoundGate(weights=weights, threshold=fit_threshold(calibration, weights))
        print(f"fitted on {len(calibration)} calibration rows: weights {gate.weights}, "
              f"threshold {gate.threshold}")
    marked = gate.threshold
    points = trade_off(rows, gate.weights, sorted({*SWEEP, marked}))
    print(curve_table(points, marked))
    for name, value in signal_aucs(rows, gate).items():
        print(f"AUC {name}: {value:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
