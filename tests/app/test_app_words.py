"""Words and screens for people (issue 57), headless with AppTest: under an answer, its sources
in a person's words and nothing of the trace (the route, the models that judged it) outside
Advanced; the chat modes named for what they do, shown to everyone, and a question asked again
in another mode to compare; the Settings page saying what the packaged model really uses; the
first screen drawn while the language model is still looked for.

The answering model is the loopback Ollama server of tests/support/loopback.py, so the answer is
a generated one, checked by ragcore's grounding verdict as the packaged model's are.
"""

from __future__ import annotations

import threading

import pytest
from support.loopback import LoopbackServer, Reply
from test_app_pages import (  # noqa: F401 (fixtures)
    app_env, built_workspace, button, chat, docs_ws, open_page,
)

from ragcore.llms.local.machine import ThreadChoice
from ragcore.llms.local.pace import ReadingBudget
from ragcore.workspace import Workspace
from webapp import state
from webapp.settings.packaged_models import in_use_notes

QUESTION = "What did the speech say about Ukraine?"
REPLY = "We are giving more than $1 Billion in direct assistance to Ukraine."
TRACE_WORDS = ("Answered from", "Support judged by", "asked whether each passage", "llama3.1",
               "the question does not ask for a summary")


@pytest.fixture
def generated(docs_ws, monkeypatch):
    """The docs workspace answered by a loopback Ollama writing ``REPLY`` (Advanced off)."""
    (docs_ws / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY) for _ in range(12)])
        monkeypatch.setenv("RAGCORE_LLM", "ollama:llama3.1")
        monkeypatch.setenv("RAGCORE_LLM_BASE_URL", server.ollama_url)
        state.forget_llm()
        yield docs_ws
    state.forget_llm()


def under_answer(at) -> list[str]:
    """Every text the page shows but the sidebar's: captions, expander titles, markdown."""
    return ([c.value for c in at.main.caption] + [e.label for e in at.main.expander]
            + [m.value for m in at.main.markdown])


def source_titles(at) -> list[str]:
    return [e.label for e in at.main.expander if e.label.startswith("[")]


def test_an_answer_reads_like_an_answer_and_the_trace_waits_under_advanced(generated):
    at = chat(open_page("chat"), QUESTION)
    shown = under_answer(at)
    assert any(t.startswith("We are giving more than") for t in shown), shown
    assert not [t for t in shown if any(word in t for word in TRACE_WORDS)], shown
    titles = source_titles(at)
    assert any(t.endswith("· states this") for t in titles), titles
    assert all(t.endswith(("· states this", "· found by the search, not used",
                           "· nearest to your question")) for t in titles), titles
    at.sidebar.toggle[0].set_value(True).run()  # Advanced: the route and the judging shown
    shown = under_answer(at)
    assert any(t.startswith("Support judged by") for t in shown), shown
    assert any(t.startswith("Answered from a search of the passages") for t in shown), shown


def test_the_query_page_keeps_the_path_and_the_models_under_advanced(generated):
    at = open_page("query")
    at.text_input[0].set_value(QUESTION).run()
    button(at, "Ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    shown = under_answer(at)
    assert any(t.startswith("We are giving more than") for t in shown), shown
    assert not [t for t in shown if any(word in t for word in (*TRACE_WORDS, "Mode **"))], shown
    at.sidebar.toggle[0].set_value(True).run()
    assert any(t.startswith("Mode **") for t in under_answer(at))


def test_the_chat_modes_are_named_for_people_and_compared_on_the_same_question(generated):
    at = chat(open_page("chat"), QUESTION)
    modes = at.sidebar.selectbox(key="chat_mode_choice")
    assert modes.options == ["Answer from the documents", "Follow the conversation",
                             "Let an agent search step by step", "Just the model, no documents"]
    assert not any("condense" in c.value for c in at.sidebar.caption)
    modes.set_value("condense_question").run()
    again = button(at, "Ask again with “Follow the conversation” to compare")
    again.click().run()
    assert not at.exception, [e.value for e in at.exception]
    chat_id = at.query_params["chat"]
    saved = Workspace(generated).load_chat(chat_id).messages
    assert [m.role for m in saved] == ["user", "assistant"] * 2
    assert saved[0].content == saved[2].content == QUESTION
    assert [m.trace["chat_mode"] for m in saved[1::2]] == ["condense_plus_context",
                                                          "condense_question"]
    assert not [b for b in at.button if b.label.startswith("Ask again with")]  # same mode now
    # the reply asked again says which mode wrote it (issue 66: it did not), on a rerun too
    for _ in range(2):
        written = [c.value for c in at.main.caption if c.value.startswith("Written by")]
        assert written == ["Written by \u201cFollow the conversation\u201d."], written
        at.run()


def test_advanced_shows_every_mode_with_its_internal_name(docs_ws):
    at = open_page("chat")
    options = at.sidebar.selectbox(key="chat_mode_choice").options
    assert "Answer from the documents (condense_plus_context)" in options
    assert "Search with my exact words (context)" in options and len(options) == 6


class _LocalModel:
    """What the Settings page reads of the packaged model answering now."""

    model = "local:qwen2.5-coder-1.5b"

    def thread_choice(self) -> ThreadChoice:
        return ThreadChoice(2, "2 cores free (other programs use 0.1)")

    def reading_budget(self) -> ReadingBudget:
        return ReadingBudget(160, "fitted to its measured reading speed")


def test_settings_say_the_threads_and_passage_tokens_in_use_not_zero():
    notes = in_use_notes(_LocalModel())
    assert notes["threads"].startswith("In use now: 2 threads (2 cores free")
    assert notes["reading_tokens"].startswith("In use now: a query reads 160 passage tokens")
    assert in_use_notes(object()) == {}  # another backend: its fields say what they are


def test_the_first_screen_is_drawn_while_the_model_is_looked_for(docs_ws, monkeypatch):
    import ragcore.workspace.backends as backends

    found = threading.Event()

    def slow_lookup(settings):
        found.wait(30)
        from ragcore.llms.extractive.backend import ExtractiveLLM
        return ExtractiveLLM()

    monkeypatch.setattr(backends, "llm_from_settings", slow_lookup)
    (docs_ws / "app-preferences.json").write_text('{"advanced": false}', encoding="utf-8")
    state.forget_llm()
    try:
        at = open_page("home")
        assert any(i.value.startswith("Looking for a language model") for i in at.info)
        assert any(c.value == "Answering: looking for a language model…"
                   for c in at.sidebar.caption)
        at = open_page("chat", at)
        assert any(c.value.startswith("Looking for a language model… You can ask already")
                   for c in at.main.caption)
        found.set()
        chat(at, QUESTION)  # the answer waited for the model, then came
        assert at.chat_message[1].markdown[0].value.startswith("Extractive answer")
        assert not any(c.value.startswith("Looking for") for c in at.main.caption)
    finally:
        found.set()
        state.forget_llm()


def _in_order(node) -> list:
    """The elements under ``node`` in the order the page draws them."""
    children = getattr(node, "children", None)
    if not children:
        return [node]
    return [leaf for key in sorted(children) for leaf in _in_order(children[key])]


@pytest.fixture
def local_model_ws(docs_ws, monkeypatch):
    """The docs workspace set to answer with the packaged model, found as ``_LocalModel``; its
    speed measured on a ``TimedLLM`` (no model is loaded)."""
    import ragcore.workspace.backends as backends
    import webapp.settings.packaged_models as packaged
    from test_app_packaged_models import TimedLLM

    from ragcore.workspace.settings import Settings

    model = _LocalModel()
    model.name = "qwen2.5-coder-1.5b"
    Workspace(docs_ws).save_settings(Settings(
        llm_backend="local", llms={"local": {"model": "qwen2.5-coder-1.5b"}}))
    monkeypatch.setattr(backends, "llm_from_settings", lambda settings: model)
    monkeypatch.setattr(packaged, "build_llm",
                        lambda *args, **kwargs: TimedLLM(reading=0.05, per_token=0.001))
    state.forget_llm()
    yield docs_ws
    state.forget_llm()


def test_settings_agree_with_themselves_and_measure_speed_answers_beside_its_button(
        local_model_ws):
    at = open_page("settings")
    captions = [c.value for c in at.main.caption]
    assert "In use now: 2 threads (2 cores free (other programs use 0.1))." in captions
    assert any(c.startswith("In use now: a query reads 160 passage tokens") for c in captions)
    [b for b in at.button if b.key == "packaged.speed.qwen2.5-coder-1.5b"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    drawn = _in_order(at.main)
    said = [i for i, e in enumerate(drawn) if e.type == "success" and "words a second" in e.value]
    table = [i for i, e in enumerate(drawn) if e.type == "dataframe"]
    assert said and table and said[0] > table[0]  # not above the table, out of view
    row = [e for e in drawn[table[0]:said[0]] if e.type == "markdown"][-1]
    assert row.value.startswith("**qwen2.5-coder-1.5b**")  # under its own row's button
    assert [e.type for e in drawn[said[0] - 2:said[0]]] == ["button", "button"]
