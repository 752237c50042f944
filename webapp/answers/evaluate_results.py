"""The Evaluate tab's results: a saved evaluation's leaderboard, chart, drill-down and exports.

The evaluation to show is the one this session just ran, else the newest of the index (any
saved one can be chosen). The leaderboard (``EvaluationReport.leaderboard()``, with bootstrap
intervals) is computed once per saved evaluation and cached; the layout comes from
``ragcore.present.leaderboard``: the table, a bar chart of one metric with its 95% intervals,
one question drilled into (each setup's answer, sources and trace side by side), and the CSV
and Markdown downloads.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from ragcore.evaluation import EvaluationReport
from ragcore.present import format as fmt
from ragcore.present import trace_view
from ragcore.present import (
    chart_spec,
    export_name,
    in_board_order,
    leaderboard_rows,
    metric_label,
    metric_line,
    question_choices,
)
from ragcore.workspace.evaluations import EvaluationStore
from webapp.session import Widget, session
from webapp.shell import in_columns

NO_TEXT = "_(no answer text)_"
PER_ROW = 4  # setups side by side in the drill-down


@st.cache_resource(show_spinner=False, max_entries=8)
def _evaluation(root: str, evaluation_id: str) -> tuple[EvaluationReport, list[Any], dict]:
    """A saved evaluation, its leaderboard and its exports (saved evaluations do not change;
    each leaderboard draws 1000 bootstrap samples per setup and metric)."""
    report = EvaluationReport.from_dict(EvaluationStore(root).load(evaluation_id))
    exports = {"answers": report.to_csv(), "leaderboard": report.leaderboard_csv(),
               "markdown": report.to_markdown()}
    return report, report.leaderboard(), exports


@st.cache_data(show_spinner=False, max_entries=16)
def _summaries(root: str, index: str, files: tuple) -> list[dict]:
    """The saved evaluations of ``index``, read again only when ``files`` (names and times
    of the evaluation files) change: each file holds every answer and trace."""
    return EvaluationStore(root).list(index=index)


def saved_evaluations(store: EvaluationStore, index: str) -> list[dict]:
    files = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in store.folder.glob("*.json")))
    return _summaries(str(store.root), index, files)


def results(name: str, store: EvaluationStore, *, job: Any = None) -> None:
    """The saved evaluations of index ``name``: one of them in full."""
    saved = saved_evaluations(store, name)
    if not saved:
        st.caption("No evaluation of this index yet.")
        return
    by_id = {s["id"]: s for s in saved}
    just_run = getattr(job, "evaluation_id", None)
    if just_run in by_id and session.evaluate_followed != just_run:
        session.preset(Widget.EVALUATION_SHOWN, just_run)
        session.evaluate_followed = just_run
    if session.widget(Widget.EVALUATION_SHOWN) not in by_id:
        session.preset(Widget.EVALUATION_SHOWN, saved[0]["id"])
    st.divider()
    chosen = st.selectbox("Evaluation", list(by_id), key=Widget.EVALUATION_SHOWN,
                          format_func=lambda i: describe(by_id[i]))
    report, board, exports = _evaluation(str(store.root), chosen)
    render_report(report, board, exports)


def describe(summary: dict) -> str:
    """"2026-11-23 11:05 · 20 questions · 2 retrievers x 4 modes" (and "cancelled")."""
    created = str(summary.get("created", ""))[:16].replace("T", " ")
    text = (f"{created} · {summary.get('question_count', 0)} questions · "
            f"{len(summary.get('retrievers', []))} retrievers x "
            f"{len(summary.get('modes', []))} modes")
    return text + (" · cancelled" if summary.get("cancelled") else "")


def render_report(report: EvaluationReport, board: list[Any], exports: dict) -> None:
    settings = report.settings
    st.caption(f"{report.question_count} questions ({report.question_set or 'question set'}) · "
               f"answered by {settings.get('llm', 'the configured backend')} · "
               f"top {settings.get('top_k', '?')} passages")
    if report.cancelled:
        st.warning("This evaluation was cancelled: the leaderboard covers the answers scored "
                   "before it stopped.")
    for problem in report.problems:
        st.caption(f"Note: {problem}")
    st.subheader("Leaderboard")
    st.dataframe(leaderboard_rows(report.metrics, board), hide_index=True, width="stretch")
    chart(report, board)
    with st.expander("How each metric was measured"):
        for metric, how in report.methods.items():
            st.markdown(f"- **{metric_label(metric)}**: {how}")
    downloads(report, exports)
    drill_down(report, board)


def chart(report: EvaluationReport, board: list[Any]) -> None:
    measured = [m for m in report.metrics if any(b.means.get(m) is not None for b in board)]
    if not measured:
        return
    primary = report.primary_metric()
    metric = st.selectbox("Chart", measured, format_func=metric_label, key="evaluate_metric",
                          index=measured.index(primary) if primary in measured else 0)
    st.vega_lite_chart(chart_spec(board, metric), width="stretch")
    st.caption("Bars are each setup's mean; the black line is its 95% confidence interval "
               "(a bootstrap over the questions): setups whose lines overlap may not differ.")


def downloads(report: EvaluationReport, exports: dict) -> None:
    answers, leaderboard, markdown = st.columns(3)
    answers.download_button("Answers (CSV)", exports["answers"], mime="text/csv",
                            file_name=export_name(report, "answers", "csv"), on_click="ignore")
    leaderboard.download_button("Leaderboard (CSV)", exports["leaderboard"], mime="text/csv",
                                file_name=export_name(report, "leaderboard", "csv"),
                                on_click="ignore")
    markdown.download_button("Leaderboard (Markdown)", exports["markdown"],
                             mime="text/markdown", on_click="ignore",
                             file_name=export_name(report, "leaderboard", "md"))


def drill_down(report: EvaluationReport, board: list[Any]) -> None:
    st.subheader("One question, every setup")
    choices = question_choices(report.rows)
    if not choices:
        return
    by_question = {question: question_id for question_id, question in choices.items()}
    question = st.selectbox("Question", list(by_question), key="evaluate_question")
    rows = in_board_order(report.rows_for(by_question[question]), board)
    reference = next((r.reference for r in rows if r.reference), None)
    if reference:
        st.caption(f"Expected answer: {reference}")
    for row in in_columns(rows, min(PER_ROW, len(rows))):
        setup_answer(row, report.metrics)


def setup_answer(row: Any, metrics: list[str]) -> None:
    """One setup's answer to the question: metrics, text, sources, trace."""
    st.markdown(f"**{row.setup}**")
    st.caption(metric_line(row, metrics) or "no metric measured")
    if row.error:
        st.warning(f"This setup failed: {row.error}")
        return
    st.markdown(fmt.markdown_text(row.answer) or NO_TEXT)
    with st.expander(f"Sources ({len(row.sources)})"):
        for number, source in enumerate(row.sources, 1):
            where = " · ".join(str(p) for p in (source.get("file"), source.get("page")) if p)
            score = source.get("score")
            st.markdown(f"**{number}.** {where}" + (f" · score {score:.2f}" if score is not None
                                                    else ""))
            st.caption(source.get("text", ""))
    with st.expander("Trace"):
        render_trace(row.trace)


def render_trace(trace: dict | None) -> None:
    if not trace:
        st.caption("No trace was kept for this answer.")
        return
    st.caption(trace_view.work_summary(trace))
    st.dataframe(trace_view.stage_rows(trace), hide_index=True, width="stretch")
    for title, call in zip(trace_view.call_titles(trace), trace.get("llm_calls", [])):
        st.markdown(f"*{title}*")
        st.code(call.get("reply", ""), language=None, wrap_lines=True)
