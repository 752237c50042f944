"""The app says once per session why answers are quoted when the packaged model cannot load."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest
from test_app_pages import (  # noqa: F401 (fixtures)
    APP, TIMEOUT, app_env, ask, built_workspace, closed_port, docs_ws, open_page,
)

from ragcore.llms import local_models, resolve
from webapp import state

REASON = "The packaged language model could not load"


@pytest.fixture
def nothing_installed(docs_ws, monkeypatch):
    monkeypatch.delenv("RAGCORE_LLM", raising=False)  # auto-detection, as a new install runs
    monkeypatch.setenv("RAGCORE_LLM_BASE_URL", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setattr(local_models, "PACKAGED_MODELS", ())
    monkeypatch.setattr(resolve, "_fallback", [])
    state.forget_llm()  # another test's cached answerer would hide the detection
    yield docs_ws
    state.forget_llm()


def told(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if REASON in w.value]


@pytest.mark.local_llm
def test_the_first_answer_says_why_then_no_other(nothing_installed):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.switch_page("pages/query.py").run()  # straight to the Query page (a link to it)
    assert told(at) == []  # not yet: it comes with the first answer
    ask(at, "What did the speech say about Ukraine?")
    assert len(told(at)) == 1
    assert "no packaged language model is installed" in told(at)[0]
    assert at.markdown[0].value.startswith("Extractive answer")
    ask(at, "What did the speech say about jobs?")
    assert told(at) == []  # said once per session
    open_page("home", at)
    assert told(at) == []


@pytest.mark.local_llm
def test_a_new_session_is_told_on_the_start_page(nothing_installed):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    assert len(told(at)) == 1
    at.run()
    assert told(at) == []


def test_nothing_is_said_when_the_model_is_chosen(docs_ws):
    at = ask(open_page("query"), "What did the speech say about Ukraine?")  # RAGCORE_LLM=extractive
    assert told(at) == []
