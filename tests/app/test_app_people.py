"""The app for people (issue 13), driven headless with AppTest: summaries on the Indexes page
and in chat, chat history, simple by default. Fake embedder and the extractive backend, so the
summaries are the offline (extractive) ones."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

APP = str(Path(__file__).resolve().parents[2] / "app.py")
TIMEOUT = 90


@pytest.fixture(scope="module")
def built_workspace(tmp_path_factory, corpus_dir) -> Path:
    root = tmp_path_factory.mktemp("people") / "ws"
    ws = Workspace(root, embedder=FakeEmbedder())
    report = ws.ingest("docs", [corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
                                corpus_dir / "python_peps" / "pep-0020.rst"])
    assert report.failed == 0
    return root


@pytest.fixture
def docs_ws(monkeypatch, built_workspace, tmp_path) -> Path:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    root = tmp_path / "ws"
    shutil.copytree(built_workspace, root)
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    return root


def open_page(page: str, at: AppTest | None = None) -> AppTest:
    at = at or AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    at.switch_page(f"pages/{page}.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def button(at: AppTest, label: str):
    matches = [b for b in at.button if b.label == label]
    assert matches, f"no button {label!r} in {[b.label for b in at.button]}"
    return matches[0]


def texts(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def test_indexes_page_summarises_a_document_and_the_index(docs_ws):
    at = open_page("indexes")
    button(at, "Summarise this index").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Summary of “docs”" in texts(at)
    assert any("extractive summary" in c.value for c in at.caption)
    button(at, "Summarise").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Summary of state_of_the_union.txt" in texts(at)
    assert list((docs_ws / "summaries").glob("*.json"))  # cached for the next time


def chat(at: AppTest, message: str) -> AppTest:
    at.chat_input[0].set_value(message).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_a_new_user_sees_pick_documents_ask_and_advanced_is_remembered(docs_ws):
    at = open_page("query")
    assert [t.label for t in at.sidebar.toggle] == ["Advanced"] and not at.sidebar.toggle[0].value
    assert not at.radio and not at.sidebar.slider and not at.sidebar.multiselect
    assert not [t for t in at.tabs if t.label == "Compare modes"]
    at.text_input[0].set_value("What did the speech say about Ukraine?").run()
    button(at, "Ask").click().run()
    assert at.markdown[0].value.startswith("Extractive answer")
    assert any(m.value.startswith("**Sources (") for m in at.markdown)
    at.sidebar.toggle[0].set_value(True).run()
    assert at.radio[0].label == "Response mode" and at.sidebar.slider
    assert any(t.label == "Compare modes" for t in at.tabs)
    again = open_page("query")  # a new session: the choice was saved in the workspace
    assert again.sidebar.toggle[0].value is True
    chat_page = open_page("chat", again)
    assert any(s.label == "Chat mode" for s in chat_page.sidebar.selectbox)


def test_chat_routes_a_summary_request_to_the_documents_summary(docs_ws):
    at = open_page("chat")
    modes = at.sidebar.selectbox(key="chat_mode_choice")  # shown to everyone, named for people
    assert modes.value == "condense_plus_context"
    assert modes.options == [
        "Answer from the documents", "Follow the conversation",
        "Let an agent search step by step", "Just the model, no documents"]
    chat(at, "Summarise the state of the union")
    reply = at.chat_message[1]
    assert reply.markdown[0].value.startswith("**Summary of state_of_the_union.txt**")
    assert not any("Answered from" in c.value for c in reply.caption)  # the route: Advanced
    chat(at, "What did the speech say about Ukraine?")
    reply = at.chat_message[3]
    assert reply.markdown[0].value.startswith("Extractive answer")
    assert not any("Answered from" in c.value for c in reply.caption)
    chat(at, "summarise this index")
    assert at.chat_message[5].markdown[0].value.startswith("**Summary of the index “docs”")


def test_saved_chats_show_dates_modes_and_can_be_renamed_searched_and_deleted(docs_ws):
    at = chat(open_page("chat"), "What did the speech say about Ukraine?")
    first = at.query_params["chat"]
    entry = button(at, "Speech, Ukraine")  # titled by the question's key phrases
    assert entry.proto.type == "primary"  # the open chat is highlighted
    assert any(c.value.startswith("today ") and "Answer from the documents · docs" in c.value
               for c in at.sidebar.caption)
    at.sidebar.text_input(key=f"title_{first}").set_value("Ukraine questions")
    button(at, "Save title").click().run()
    assert any(b.label == "Ukraine questions" for b in at.button)
    button(at, "New chat").click().run()
    chat(at, "What did the speech say about COVID?")
    at.sidebar.text_input(key="chat_search").set_value("ukraine").run()
    assert [b.label for b in at.button if b.key and b.key.startswith("open_")] == [
        "Ukraine questions"]
    at.sidebar.text_input(key="chat_search").set_value("").run()
    button(at, "Delete this chat").click().run()
    button(at, "Yes, delete").click().run()
    assert not at.exception
    assert [b.label for b in at.button if b.key and b.key.startswith("open_")] == [
        "Ukraine questions"]
    button(at, "Delete all chats…").click().run()
    button(at, "Yes, delete").click().run()
    assert not list((docs_ws / "chats").glob("*.json"))


def test_an_index_named_with_spaces_and_accents_is_shown_by_that_name(monkeypatch, tmp_path):
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path / "ws"))
    at = open_page("upload")
    at.text_input[0].set_value("Dossiers été 2024")
    at.file_uploader[0].set_value(("a.txt", b"Some text about owls.", "text/plain")).run()
    button(at, "Index 1 file").click().run()
    from ragcore.workspace.jobs.runner import runner_for

    assert runner_for(tmp_path / "ws").wait_idle(timeout=TIMEOUT)
    assert Workspace(tmp_path / "ws").index_names() == ["Dossiers-ete-2024"]
    # A fresh session: AppTest cannot replay a selectbox whose shown names differ from its
    # values (it formats them without the app's format_func), as the upload page's now does.
    chat_page = open_page("chat")
    index_box = chat_page.sidebar.selectbox[0]
    assert index_box.label == "Index" and index_box.options == ["Dossiers été 2024"]


def test_settings_explain_temperature_and_context_window_in_plain_words(docs_ws):
    at = open_page("settings")
    captions = " ".join(c.value for c in at.caption)
    assert "same careful answer every time" in captions
    assert "How much text the model can read at once" not in captions  # tokens: Advanced's
    at.sidebar.toggle[0].set_value(True).run()
    captions = " ".join(c.value for c in at.caption)
    assert "How much text the model can read at once" in captions


def test_start_page_shows_dates_people_read(docs_ws):
    at = AppTest.from_file(APP, default_timeout=TIMEOUT).run()
    updated = at.dataframe[0].value["updated"].tolist()
    assert updated and all(u.startswith("today ") for u in updated)


def test_the_query_page_answers_a_summary_request_with_the_summary(docs_ws):
    at = open_page("query")
    at.text_input[0].set_value("Give me a summary of pep 20").run()
    button(at, "Ask").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.markdown[0].value.startswith("**The abstract of “The Zen of Python” (pep-0020.rst)**")  # its own words, at once
    assert not any("Answered from" in c.value for c in at.caption)  # the route: Advanced


def test_summaries_written_at_ingest_are_shown_without_asking_the_model_again(
        monkeypatch, tmp_path, corpus_dir):
    from support.loopback import LoopbackServer, Reply

    from ragcore.workspace.jobs.runner import JobRunner
    from ragcore.workspace.settings import Settings

    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    root = tmp_path / "ws"
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    with LoopbackServer() as server:
        ws = Workspace(root, embedder=FakeEmbedder())
        model = {"url": server.ollama_url, "model": "llama3.1"}
        ws.save_settings(Settings(llm_backend="ollama", llms={"ollama": model}))
        server.queue(Reply(text="The President spoke about Ukraine, prices and jobs."))
        runner = JobRunner(root)
        speech = corpus_dir / "state_of_the_union" / "state_of_the_union.txt"
        job = runner.ingest(ws, "speech", [speech])
        runner.wait(job.id, TIMEOUT)
        assert job.summary.endswith("; 1 file summarised by ollama:llama3.1"), job.summary
        asked = len(server.requests)
        at = open_page("indexes")
        button(at, "Summarise").click().run()
        assert not at.exception, [e.value for e in at.exception]
        assert "The President spoke about Ukraine, prices and jobs." in texts(at)
        assert any("Written by the language model ollama:llama3.1" in c.value for c in at.caption)
        assert len(server.requests) == asked  # read from the summaries made at ingest
