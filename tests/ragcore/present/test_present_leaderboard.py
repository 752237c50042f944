"""The evaluation leaderboard as the app lays it out: table rows, the chart with intervals,
the drill-down order and the export names (worked examples over a small report)."""

from ragcore.evaluation import EvaluationReport, QuestionRow
from ragcore.present.leaderboard import (
    chart_spec,
    export_name,
    in_board_order,
    leaderboard_rows,
    metric_line,
    question_choices,
    with_interval,
)


def _row(retriever, mode, qid, hit, faithful):
    return QuestionRow(retriever, mode, qid, f"question {qid}?", answer=f"{retriever} {mode}",
                       metrics={"hit_rate": hit, "faithfulness": faithful},
                       passing={"faithfulness": faithful >= 0.5})


def report() -> EvaluationReport:
    rows = [_row("hybrid", "compact", q, 1.0, 1.0) for q in ("q1", "q2", "q3", "q4")]
    rows += [_row("keyword", "compact", q, h, 0.0) for q, h in
             (("q1", 1.0), ("q2", 0.0), ("q3", 0.0), ("q4", 1.0))]
    return EvaluationReport("docs", ["compact"], ["keyword", "hybrid"],
                            ["hit_rate", "faithfulness"], rows=rows, id="20261123T1100Z-abc")


def test_the_table_ranks_setups_with_means_and_intervals():
    evaluation = report()
    board = evaluation.leaderboard(sort_by="hit_rate", resamples=200)
    rows = leaderboard_rows(evaluation.metrics, board)

    assert [(r["Rank"], r["Setup"]) for r in rows] == [(1, "hybrid / compact"),
                                                      (2, "keyword / compact")]
    assert rows[0]["Hit rate"] == "1.000 [1.00, 1.00]"
    assert rows[1]["Hit rate"].startswith("0.500 [0.")
    assert rows[1]["Faithfulness"] == "0.000 [0.00, 0.00]"
    assert with_interval(None, None) == "n/a" and with_interval(0.5, None) == "0.500"


def test_the_chart_has_a_bar_per_setup_best_on_top_and_an_interval_rule():
    evaluation = report()
    board = evaluation.leaderboard(sort_by="hit_rate", resamples=200)
    spec = chart_spec(board, "hit_rate")
    values = spec["data"]["values"]

    assert [v["setup"] for v in values] == ["hybrid / compact", "keyword / compact"]
    assert values[1]["mean"] == 0.5 and 0 <= values[1]["low"] < 0.5 < values[1]["high"] <= 1
    bar, rule = spec["layer"]
    assert bar["encoding"]["y"]["sort"] == ["hybrid / compact", "keyword / compact"]
    assert bar["encoding"]["x"]["title"] == "Hit rate"
    assert (rule["encoding"]["x"]["field"], rule["encoding"]["x2"]["field"]) == ("low", "high")
    assert chart_spec(board, "correctness")["data"]["values"] == []  # not measured: no bars


def test_a_question_drills_down_in_leaderboard_order():
    evaluation = report()
    board = evaluation.leaderboard(sort_by="hit_rate", resamples=200)
    rows = in_board_order(evaluation.rows_for("q2"), board)

    assert list(question_choices(evaluation.rows)) == ["q1", "q2", "q3", "q4"]
    assert [r.setup for r in rows] == ["hybrid / compact", "keyword / compact"]
    assert metric_line(rows[0], evaluation.metrics) == "Hit rate 1.00 · Faithfulness 1.00 ✓"
    assert metric_line(rows[1], evaluation.metrics) == "Hit rate 0.00 · Faithfulness 0.00 ✗"


def test_export_names_say_which_evaluation():
    assert export_name(report(), "leaderboard", "csv") == (
        "evaluation-docs-20261123T1100Z-abc-leaderboard.csv")
