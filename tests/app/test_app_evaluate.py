"""The Query page's Evaluate tab (Advanced), driven headless with AppTest: generate a question
set offline, run modes x retrievers as a background job, read the leaderboard, chart and
exports, drill into one question, cancel a run, reuse a saved question set."""

from __future__ import annotations

from support.loopback import loopback  # noqa: F401 (fixture)
from streamlit.testing.v1 import AppTest

from test_app_pages import (  # noqa: F401 (fixtures)
    APP,
    TIMEOUT,
    app_env,
    built_workspace,
    button,
    docs_ws,
    open_page,
)

JOB_KEY = "evaluate_job"


def prepared(count: int, modes: list[str], retrievers: list[str]) -> AppTest:
    at = open_page("query")
    at.number_input(key="evaluate_count").set_value(count).run()
    button(at, "Generate questions").click().run()
    at.multiselect(key="evaluate_modes").set_value(modes).run()
    at.multiselect(key="evaluate_retrievers").set_value(retrievers).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def finished(at: AppTest) -> AppTest:
    job = at.session_state[JOB_KEY]
    job.wait(timeout=120)
    assert job.state in ("done", "cancelled"), job.error
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def test_an_evaluation_runs_as_a_job_and_shows_its_leaderboard(docs_ws):
    at = prepared(5, ["compact", "refine"], ["hybrid", "keyword"])
    assert "5 questions (offline (key phrase), seed 0)" in captions(at)
    assert "4 setups (2 retrievers x 2 modes)" in captions(at)
    button(at, "Run evaluation").click().run()
    at = finished(at)

    table = at.dataframe[0].value
    assert sorted(table["Setup"]) == ["hybrid / compact", "hybrid / refine",
                                      "keyword / compact", "keyword / refine"]
    assert table["Questions"].tolist() == [5, 5, 5, 5]
    assert all(cell == "n/a" or "[" in cell for cell in table["Hit rate"])
    charts = at.get("vega_lite_chart")
    assert len(charts) == 1
    labels = {b.proto.label for b in at.get("download_button")}
    assert labels == {"Answers (CSV)", "Leaderboard (CSV)", "Leaderboard (Markdown)"}

    at.selectbox(key="evaluate_question").select_index(1).run()
    shown = [m.value for m in at.markdown]
    assert [s for s in shown if s.startswith("**") and " / " in s] == [
        f"**{setup}**" for setup in table["Setup"]]  # side by side, in leaderboard order
    assert len([e for e in at.expander if e.label.startswith("Sources (")]) == 4


def test_a_run_can_be_cancelled_and_keeps_what_it_scored(docs_ws):
    at = prepared(20, ["compact", "refine", "tree_summarize", "accumulate"],
                  ["hybrid", "keyword"])
    button(at, "Run evaluation").click().run()
    assert button(at, "Run evaluation").disabled  # one run at a time
    button(at, "Cancel evaluation").click().run()
    at = finished(at)

    assert at.session_state[JOB_KEY].state == "cancelled"
    assert any("was cancelled" in w.value for w in at.warning)
    assert at.session_state["evaluate_shown"] == at.session_state[JOB_KEY].evaluation_id


def test_a_saved_question_set_can_be_chosen_again(docs_ws):
    at = prepared(5, ["compact"], ["hybrid"])
    at = open_page("query", AppTest.from_file(APP, default_timeout=TIMEOUT).run())  # a new session
    assert "Choose or make a question set" in captions(at)
    at.radio(key="evaluate_source").set_value("A saved question set").run()
    assert at.selectbox(key="evaluate_saved").options == ["docs-key-phrase-5"]
    button(at, "Use this question set").click().run()
    assert "Question set **docs-key-phrase-5**: 5 questions" in captions(at)


class FailedJob:
    """What a failed ``EvaluationJob`` shows the page."""

    active, state, error, evaluation_id = False, "failed", "ConfigError: no passages", None


def test_a_failed_run_says_why(docs_ws):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.session_state[JOB_KEY] = FailedJob()
    at = open_page("query", at.run())
    assert [e.value for e in at.error] == ["The evaluation failed: ConfigError: no passages"]


def test_with_a_language_model_it_grades_the_answers(docs_ws, loopback, monkeypatch):  # noqa: F811
    monkeypatch.setenv("RAGCORE_LLM", "ollama:llama3.1")
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", loopback.ollama_url)
    at = prepared(5, ["compact"], ["hybrid", "hyde"])
    assert at.checkbox(key="evaluate_judge").value  # grading by the model is offered, and on
    button(at, "Run evaluation").click().run()
    at = finished(at)

    methods = "\n".join(m.value for m in at.markdown if m.value.startswith("- **"))
    assert "- **Faithfulness**: judge: ollama:llama3.1" in methods
    assert "- **Relevancy**: judge: ollama:llama3.1" in methods
    assert sorted(at.dataframe[0].value["Setup"]) == ["hybrid / compact", "hyde / compact"]
    assert len(loopback.requests) > 5 * 2 * 3  # answers, HyDE passages and the judge's grades
