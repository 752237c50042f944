"""The gate's offline tools (benchmarks/answers/gate_sweep.py): fitting on calibration rows,
choosing the threshold within the false "not found" target, applying it as the engine does."""

from __future__ import annotations

import random

from dataclasses import replace

from benchmarks.answers.gate_sweep import (
    fit,
    gate_of,
    gated_answer,
    refuses,
    signal_aucs,
    trade_off,
)
from ragcore.prompts.answer import NOT_FOUND_SENTENCE
from ragcore.synthesis.not_found import Calibration

MODEL_SIGNALS = ("p_not_found", "p_no")


def row(answerable: bool, p_not: float, p_no: float, answer: str | None = "**x**. Y.") -> dict:
    return {"id": "q", "question": "Where is the tower?", "golds": ["x"] if answerable else [],
            "answer": answer, "passages": ["The tower is in Paris. It is tall."],
            "signals": {"p_not_found": p_not, "model_refuses": False, "p_no": p_no}}


def rows(n: int = 60, seed: int = 1) -> list[dict]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        answerable = i % 2 == 0
        centre = 0.2 if answerable else 0.6
        out.append(row(answerable, min(0.99, max(0.01, rng.gauss(centre, 0.15))),
                       min(0.99, max(0.01, rng.gauss(centre, 0.2)))))
    return out


def test_fitted_weights_rise_with_both_signals():
    bias, w_not, w_no = fit(rows(), MODEL_SIGNALS).weights
    assert w_not > 0 and w_no > 0


def test_answerability_is_read_from_old_rows_and_weighs_against_not_found():
    data = rows()
    for r in data:  # answerable rows: the answerability model is sure they are
        r["extractive_score"] = 0.9 if r["golds"] else 0.2
    bias, w_not, w_answered = fit(data, ("p_not_found", "p_answered")).weights
    assert w_not > 0 and w_answered > 0  # a low p_answered is a high chance of "not answered"


def test_the_threshold_keeps_false_not_found_within_the_target():
    data = rows()
    fitted = fit(data, MODEL_SIGNALS, target=0.05)
    gate = gate_of(fitted)
    good = [refuses(r, gate) for r in data if r["golds"]]
    assert sum(good) / len(good) <= 0.05
    looser = gate_of(replace(fitted, threshold=round(fitted.threshold - 0.01, 2)))
    assert sum(refuses(r, looser) for r in data if r["golds"]) / len(good) > 0.05


EVEN = Calibration(MODEL_SIGNALS, (0.0, 1.0, 1.0), 0.5)


def test_a_refused_row_reads_as_the_engine_would_reply():
    gate = gate_of(EVEN)
    refused = gated_answer(row(False, 0.6, 0.9), gate)
    assert refused.startswith(NOT_FOUND_SENTENCE) and "The tower is in Paris." in refused
    assert gated_answer(row(True, 0.05, 0.1), gate) == "**x**. Y."


def test_the_trade_off_curve_refuses_less_as_the_threshold_rises():
    points = trade_off(rows(), EVEN, (0.3, 0.5, 0.7, 1.0))
    bad = [p[1] for p in points]
    assert bad == sorted(bad, reverse=True) and points[-1][1:] == (0.0, 0.0)


def test_a_models_short_answer_is_its_bold_phrase_else_its_first_sentence():
    from benchmarks.answers.answer_measures import short_answer

    assert short_answer("**1908**. The pine was chosen in 1908.") == "1908"
    assert short_answer("The animal is the grizzly bear. It was chosen.") == (
        "The animal is the grizzly bear.")
    assert short_answer(f"{NOT_FOUND_SENTENCE}\n\nThe closest passage says: \u201cx\u201d") == ""


def test_a_question_the_gate_was_not_asked_about_is_not_refused_by_it():
    # a list or a question about a document: the engine never gates it, so no signals
    ungated = dict(row(True, 0.99, 0.99, answer="- water\n- stone"), signals=None)
    gate = gate_of(replace(fit(rows(), MODEL_SIGNALS), threshold=0.01))
    assert gated_answer(ungated, gate) == "- water\n- stone" and not refuses(ungated, gate)
    assert signal_aucs([*rows(), ungated], gate) == signal_aucs(rows(), gate)
    fit([*rows(), ungated], MODEL_SIGNALS)
