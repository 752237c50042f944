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
from dataclasses import replace
from typing import Sequence

import numpy as np

from ragcore.synthesis.not_found import (
    MODEL_ONLY,
    Calibration,
    GateSignals,
    NotFoundGate,
    refusal,
)

from .answer_measures import Record, says_not_found

SWEEP = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
FALSE_REFUSAL_TARGET = 0.04  # on the calibration answerable questions: 5 % leaves ~1 point
# The signal sets fitted and compared: all three; without the check pass (it costs a request
# before the first token); the model's own two (no embedding model: ``MODEL_ONLY``).
SIGNAL_SETS = (("p_not_found", "p_no", "p_answered"), ("p_not_found", "p_answered"),
               MODEL_ONLY.signals, ("p_no", "p_answered"), ("p_no",))


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def signals_of(row: dict) -> GateSignals:
    """The row's signals; rows recorded before the gate measured answerability kept it as the
    extractive answerer's score (``extractive_score``)."""
    signals = dict(row["signals"])
    signals.setdefault("p_answered", row.get("extractive_score"))
    return GateSignals(**signals)


def gate_refuses(row: dict, gate: NotFoundGate) -> bool:
    """Whether ``gate`` refuses the row's question; never one the gate was not asked about (no
    signals: a list, summary or document question, whose kind the engine never gates)."""
    return row.get("signals") is not None and gate.refuses_for(signals_of(row))


def gated(rows: Sequence[dict]) -> list[dict]:
    """The rows whose question the gate was asked about."""
    return [row for row in rows if row.get("signals") is not None]


def gated_answer(row: dict, gate: NotFoundGate) -> str:
    """The local model's reply as the engine gives it with ``gate``."""
    if gate_refuses(row, gate):
        return refusal(row["question"], row["passages"])
    return row["answer"]


def refuses(row: dict, gate: NotFoundGate) -> bool:
    """Whether the reply says "not found": the gate's refusal, or (rarely, after the nudge) the
    model's own; rows without an answer (calibration: signals only) count the gate's alone."""
    if gate_refuses(row, gate):
        return True
    return row.get("answer") is not None and says_not_found(row["answer"])


def gate_of(calibration: Calibration) -> NotFoundGate:
    """The engine's gate using ``calibration`` (whichever signals it reads)."""
    if "p_answered" in calibration.signals:
        return NotFoundGate(calibration=calibration)
    return NotFoundGate(calibration=calibration, model_only=calibration)


def records(rows: Sequence[dict], gate: NotFoundGate, *, answerer: str = "local") -> list[Record]:
    """``answer_measures.Record``s of the local model's gated answers (or the extractive's)."""
    out = []
    for row in rows:
        answer = gated_answer(row, gate) if answerer == "local" else row["extractive_answer"]
        seconds = row["seconds"] if answerer == "local" else row["extractive_seconds"]
        out.append(Record(row["id"], row["question"], row["golds"], answer,
                          row["passages"] if answerer == "local" else row["extractive_passages"],
                          row["retrieved"] if answerer == "local" else row["extractive_retrieved"],
                          seconds, score=None if answerer == "local"
                          else row.get("extractive_stated_score")))
    return out


def trade_off(rows: Sequence[dict], calibration: Calibration,
              thresholds: Sequence[float] = SWEEP) -> list[tuple[float, float, float]]:
    """(threshold, "not found" on unanswerable %, false "not found" on answerable %)."""
    out = []
    for t in thresholds:
        gate = gate_of(replace(calibration, threshold=t))
        bad = [refuses(r, gate) for r in rows if not r["golds"]]
        good = [refuses(r, gate) for r in rows if r["golds"]]
        out.append((t, 100 * np.mean(bad), 100 * np.mean(good)))
    return out


def fit(rows: Sequence[dict], signals: Sequence[str], *, l2: float = 0.1,
        target: float = FALSE_REFUSAL_TARGET) -> Calibration:
    """Logistic regression of "unanswerable" on ``signals``' log-odds (Newton steps), then the
    lowest threshold (step 0.01) whose false "not found" on the answerable rows stays within
    ``target``."""
    probe = Calibration(tuple(signals), (0.0,) * (len(signals) + 1), 1.0)
    rows = gated(rows)
    x = np.array([[1.0, *probe.features(signals_of(r))] for r in rows])
    y = np.array([0.0 if r["golds"] else 1.0 for r in rows])
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + l2 * w
        hess = (x * (p * (1 - p))[:, None]).T @ x + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    weighted = replace(probe, weights=tuple(round(float(v), 3) for v in w))
    for t in np.arange(0.01, 1.0, 0.01):
        gate = gate_of(replace(weighted, threshold=round(float(t), 2)))
        if np.mean([refuses(r, gate) for r in rows if r["golds"]]) <= target:
            return replace(weighted, threshold=round(float(t), 2))
    return weighted


def auc(rows: Sequence[dict], key) -> float:
    """The chance (%) that an unanswerable row's ``key`` beats an answerable one's."""
    bad = [key(r) for r in rows if not r["golds"]]
    good = [key(r) for r in rows if r["golds"]]
    wins = [(b > g) + 0.5 * (b == g) for b in bad for g in good]
    return 100 * float(np.mean(wins)) if wins else float("nan")


def signal_aucs(rows: Sequence[dict], gate: NotFoundGate) -> dict[str, float]:
    """How well each signal alone, and the gate's score, tells unanswerable rows apart (of the
    rows the gate was asked about)."""
    rows = gated(rows)
    keys = {
        "p_not_found (first token 'Not')": lambda r: r["signals"]["p_not_found"],
        "p_no (check pass)": lambda r: r["signals"]["p_no"],
        "p_answered (answerability model, lower)": lambda r: -(signals_of(r).p_answered or 0.0),
        "gate score": lambda r: gate.score(signals_of(r)),
        "retrieval: top passage score (lower)": lambda r: -(r.get("top_score") or 0.0),
    }
    return {name: auc(rows, key) for name, key in keys.items()}


def curve_table(points: Sequence[tuple[float, float, float]], marked: float) -> str:
    lines = ["| threshold | 'not found' on unanswerable | false 'not found' on answerable |",
             "|---|---|---|"]
    for t, bad, good in points:
        mark = " (shipped)" if math.isclose(t, marked) else ""
        lines.append(f"| {t:.2f}{mark} | {bad:.1f} % | {good:.1f} % |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("rows", type=Path)
    parser.add_argument("--fit", type=Path, help="calibration rows to fit weights and thresholds")
    args = parser.parse_args(argv)
    rows = read_rows(args.rows)
    gates = {"shipped": NotFoundGate()}
    if args.fit:
        calibration = read_rows(args.fit)
        for signals in SIGNAL_SETS:
            fitted = fit(calibration, signals)
            gates[", ".join(signals)] = gate_of(fitted)
            print(f"fitted on {len(calibration)} calibration rows: {fitted}")
    for name, gate in gates.items():
        calibration = gate.chosen(signals_of(gated(rows)[0]))
        print(f"\n{name}: {calibration}")
        points = trade_off(rows, calibration, sorted({*SWEEP, calibration.threshold}))
        print(curve_table(points, calibration.threshold))
        for signal, value in signal_aucs(rows, gate).items():
            print(f"AUC {signal}: {value:.1f} %")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
