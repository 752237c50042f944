"""An evaluation as the app shows it: the leaderboard table, its bar chart with confidence
intervals, the questions to drill into, and the names of the exported files.

``ragcore.evaluation`` measures and ranks (``EvaluationReport.leaderboard()``, with bootstrap
intervals) and writes CSV and Markdown; this module only lays those results out, as plain rows
for ``st.dataframe`` and a Vega-Lite spec for ``st.vega_lite_chart``, so the page stays a shell.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

METRIC_LABELS = {
    "hit_rate": "Hit rate",
    "mrr": "MRR",
    "ndcg": "nDCG",
    "faithfulness": "Faithfulness",
    "relevancy": "Relevancy",
    "correctness": "Correctness",
    "semantic_similarity": "Semantic similarity",
}
CHART_HEIGHT_PER_SETUP = 36  # pixels per bar: every setup's name fits beside its bar


def metric_label(metric: str) -> str:
    """A metric's name for people ("semantic_similarity" -> "Semantic similarity")."""
    return METRIC_LABELS.get(metric, metric.replace("_", " ").capitalize())


def with_interval(mean: float | None, interval: Sequence[float] | None) -> str:
    """``0.812 [0.70, 0.90]``; "n/a" when the metric was not measured."""
    if mean is None:
        return "n/a"
    if not interval:
        return f"{mean:.3f}"
    return f"{mean:.3f} [{interval[0]:.2f}, {interval[1]:.2f}]"


def leaderboard_rows(metrics: Sequence[str], board: Sequence[Any]) -> list[dict[str, Any]]:
    """One table row per setup, best first: each metric's mean and 95% interval."""
    rows = []
    for rank, entry in enumerate(board, 1):
        row: dict[str, Any] = {"Rank": rank, "Setup": entry.setup, "Questions": entry.questions}
        for metric in metrics:
            row[metric_label(metric)] = with_interval(entry.means.get(metric),
                                                      entry.intervals.get(metric))
        row["Errors"] = entry.errors
        row["Seconds per answer"] = round(entry.seconds, 2)
        rows.append(row)
    return rows


def chart_spec(board: Sequence[Any], metric: str) -> dict[str, Any]:
    """A Vega-Lite bar chart of ``metric``'s mean per setup, best on top, with a rule from the
    interval's low to high end (setups where it was not measured are left out)."""
    label = metric_label(metric)
    values = []
    for entry in board:
        mean = entry.means.get(metric)
        if mean is None:
            continue
        low, high = entry.intervals.get(metric) or (mean, mean)
        values.append({"setup": entry.setup, "mean": round(mean, 4), "low": round(low, 4),
                       "high": round(high, 4)})
    order = [v["setup"] for v in sorted(values, key=lambda v: -v["mean"])]
    y = {"field": "setup", "type": "nominal", "sort": order, "title": None,
         "axis": {"labelLimit": 260}}
    tooltip = [{"field": "setup", "title": "Setup"},
               {"field": "mean", "title": label, "format": ".3f"},
               {"field": "low", "title": "95% low", "format": ".3f"},
               {"field": "high", "title": "95% high", "format": ".3f"}]
    return {
        "data": {"values": values},
        "height": max(1, len(values)) * CHART_HEIGHT_PER_SETUP,
        "layer": [
            {"mark": {"type": "bar", "tooltip": True},
             "encoding": {"x": {"field": "mean", "type": "quantitative", "title": label},
                          "y": y, "tooltip": tooltip}},
            {"mark": {"type": "rule", "strokeWidth": 2, "color": "black"},
             "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"},
                          "y": y}},
        ],
    }


def question_choices(rows: Sequence[Any]) -> dict[str, str]:
    """Question id -> question, in the order the evaluation asked them."""
    return {row.question_id: row.question for row in rows}


def in_board_order(rows: Sequence[Any], board: Sequence[Any]) -> list[Any]:
    """One question's rows, in the leaderboard's order of their setups."""
    rank = {entry.setup: number for number, entry in enumerate(board)}
    return sorted(rows, key=lambda row: rank.get(row.setup, len(rank)))


def metric_line(row: Any, metrics: Sequence[str]) -> str:
    """"Hit rate 1.00 · MRR 0.50 ✓ ..." for one answer: each measured metric, and whether it
    passed where the evaluator gives a verdict."""
    parts = []
    for metric in metrics:
        value = row.metrics.get(metric)
        if value is None:
            continue
        verdict = row.passing.get(metric)
        mark = "" if verdict is None else (" ✓" if verdict else " ✗")
        parts.append(f"{metric_label(metric)} {value:.2f}{mark}")
    return " · ".join(parts)


def export_name(report: Any, what: str, extension: str) -> str:
    """The download's file name: ``evaluation-<index>-<id>-<what>.<extension>``."""
    stem = "-".join(part for part in ("evaluation", report.index, report.id, what) if part)
    return re.sub(r"[^\w.-]+", "_", stem) + f".{extension}"
