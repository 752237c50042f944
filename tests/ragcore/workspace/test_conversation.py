"""A chat turn (``ragcore.workspace.conversation``): routed, answered and recorded the same way by
the Chat page and ``ragcore chat``. A real workspace and index in tmp_path, the fake embedder,
extractive answers."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.chat import ChatMode
from ragcore.chat.titles import key_phrase_title
from ragcore.cli import main
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.llms.extractive import answer as extractive_answer
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.present.answer_score import THRESHOLD_KEY, TRACE_KEY
from ragcore.summaries.router import INDEX_SUMMARY, RETRIEVAL, SUMMARY
from ragcore.trace import Trace
from ragcore.types import Message
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat, export_markdown
from ragcore.workspace.conversation import (
    ROUTE_NOTE,
    SCORE_KEY,
    THRESHOLD_KEY as SAVED_THRESHOLD_KEY,
    Conversation,
    TurnSettings,
    clear_chat,
    memory_for_chat,
    record_stopped_turn,
    route_for,
    start_chat,
    summary_answer,
)

APP = str(Path(__file__).resolve().parents[3] / "app.py")
SPEECH, PEP = "state_of_the_union.txt", "pep-0020.rst"
QUESTIONS = ["Summarise pep-0020.rst", "What did the speech say about Ukraine?",
             "Summarise the index", "And what about inflation and prices?"]
ROUTES = [SUMMARY, RETRIEVAL, INDEX_SUMMARY, RETRIEVAL]


@pytest.fixture(scope="module")
def built(tmp_path_factory, corpus_dir) -> Path:
    """A workspace holding the index "docs": the speech and PEP 20."""
    root = tmp_path_factory.mktemp("conversation") / "ws"
    report = Workspace(root, embedder=FakeEmbedder()).ingest(
        "docs", [corpus_dir / "state_of_the_union" / SPEECH, corpus_dir / "python_peps" / PEP])
    assert report.failed == 0
    return root


@pytest.fixture
def ws(built, tmp_path) -> Workspace:
    root = tmp_path / "ws"
    shutil.copytree(built, root)
    return Workspace(root, embedder=FakeEmbedder())


def key_of(index, file_name: str) -> str:
    return next(row["id_base"] for row in _files(index) if row["file"] == file_name)


def _files(index):
    from ragcore.workspace.ingest.index_files import files_of

    return files_of(index)


def talk(ws: Workspace, mode: str = "condense_plus_context") -> Conversation:
    return Conversation(ws, start_chat("docs", mode), ws.load_index("docs"), ExtractiveLLM())


def turn(conversation: Conversation, question: str, settings: TurnSettings):
    response = conversation.ask(question, settings)
    "".join(response)
    return conversation.record(question, response, settings)


# --- the Chat page and ``ragcore chat`` record the same chat ---------------------------------


def chat_in_the_app(root: Path, monkeypatch) -> dict:
    monkeypatch.setenv("RAGCORE_LLM", "extractive")
    monkeypatch.setenv("RAGCORE_EMBEDDER", "fake")
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(root))
    at = AppTest.from_file(APP, default_timeout=90).run()
    at.switch_page("pages/chat.py").run()
    for question in QUESTIONS:
        at.chat_input[0].set_value(question).run()
        assert not at.exception, [e.value for e in at.exception]
    [path] = (root / "chats").glob("*.json")
    return json.loads(path.read_text())


def chat_in_the_terminal(root: Path, monkeypatch, capsys) -> dict:
    monkeypatch.delenv("RAGCORE_LLM", raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(QUESTIONS) + "\n"))
    code = main(["--workspace", str(root), "chat", "--index", "docs", "--llm", "extractive",
                 "--save", "--top-k", "4", "--retrieval", "hybrid"], embedder=FakeEmbedder())
    assert code == 0, capsys.readouterr().err
    [path] = (root / "chats").glob("*.json")
    return json.loads(path.read_text())


def comparable(chat: dict) -> dict:
    """A saved chat without what differs between any two runs: ids, times, timings."""
    def trace(saved: dict | None) -> dict:
        saved = dict(saved or {})
        stages = [stage["name"] for stage in saved.pop("stages", [])]
        calls = [(call["purpose"], call["reply"]) for call in saved.pop("llm_calls", [])]
        return {**saved, "stages": stages, "llm_calls": calls}

    messages = [{"role": m["role"], "content": m["content"], "sources": m["sources"],
                 "trace": trace(m["trace"])} for m in chat["messages"]]
    kept = {k: v for k, v in chat.items() if k not in ("id", "created", "updated", "messages")}
    return {**kept, "messages": messages}


@pytest.mark.slow
def test_the_chat_page_and_ragcore_chat_record_the_same_saved_chat(built, tmp_path, monkeypatch,
                                                                   capsys):
    app_root, cli_root = tmp_path / "app", tmp_path / "cli"
    shutil.copytree(built, app_root)
    shutil.copytree(built, cli_root)
    in_app = chat_in_the_app(app_root, monkeypatch)
    in_terminal = chat_in_the_terminal(cli_root, monkeypatch, capsys)
    routes = [m["trace"]["notes"][ROUTE_NOTE]["kind"] for m in in_terminal["messages"]
              if m["role"] == "assistant"]
    assert routes == ROUTES  # the terminal routes summaries as the app does
    replies = [m for m in in_terminal["messages"] if m["role"] == "assistant"]
    assert replies[0]["content"].startswith("**The abstract of “The Zen of Python” (pep-0020.rst)**") and not replies[0]["sources"]
    assert replies[1]["sources"][0]["file_name"] == SPEECH
    assert all("messages" not in call for m in replies for call in m["trace"]["llm_calls"])
    assert comparable(in_terminal) == comparable(in_app)


# --- route ------------------------------------------------------------------------------------


def test_a_request_for_a_summary_is_routed_to_the_summary_and_a_question_to_search(ws):
    index = ws.load_index("docs")
    pep = key_of(index, PEP)
    assert (route_for(index, "Summarise pep-0020.rst").kind,
            route_for(index, "Summarise pep-0020.rst").document) == (SUMMARY, pep)
    assert route_for(index, "Summarise the index").kind == INDEX_SUMMARY
    assert route_for(index, "What did the speech say about Ukraine?").kind == RETRIEVAL
    trace = Trace()
    text = summary_answer(ws, "docs", index, ExtractiveLLM(), "Summarise pep-0020.rst", trace)
    assert text.startswith("**The abstract of “The Zen of Python” (pep-0020.rst)**") and "own abstract" in text
    assert trace.notes[ROUTE_NOTE]["kind"] == SUMMARY
    assert [s.name for s in trace.stages][-1] == "summary"
    trace = Trace()
    assert summary_answer(ws, "docs", index, ExtractiveLLM(), "Who spoke?", trace) is None
    assert trace.notes[ROUTE_NOTE]["kind"] == RETRIEVAL


def test_chosen_files_limit_what_a_summary_request_can_name(ws):
    index = ws.load_index("docs")
    speech, pep = key_of(index, SPEECH), key_of(index, PEP)
    named_elsewhere = route_for(index, "Summarise pep-0020.rst", [speech])
    assert named_elsewhere.kind == RETRIEVAL and "does not use" in named_elsewhere.reason
    only_file = route_for(index, "Summarise the documents", [pep])
    assert (only_file.kind, only_file.document) == (SUMMARY, pep)
    both = route_for(index, "Summarise the documents", [pep, speech])
    assert both.kind == RETRIEVAL and "chosen files" in both.reason


def test_a_summary_reply_streams_into_the_memory_and_makes_no_search(ws):
    conversation = talk(ws)
    settings = TurnSettings()
    response = conversation.ask("Summarise pep-0020.rst", settings)
    assert response.mode == "summary" and response.source_nodes == []
    assert [m.role for m in conversation.memory.messages] == ["user"]  # the reply: once read
    text = "".join(response)
    assert [(m.role, m.content) for m in conversation.memory.messages][-1] == ("assistant", text)
    assert "retrieve" not in [s.name for s in response.trace.stages]


# --- record -----------------------------------------------------------------------------------


def test_a_turn_is_recorded_only_after_its_reply_streamed(ws):
    conversation = talk(ws, "context")
    settings = TurnSettings(chat_mode="context", similarity_top_k=2, retrieval_mode="keyword")
    question = "What did the speech say about Ukraine?"
    response = conversation.ask(question, settings)
    with pytest.raises(ValueError, match="streamed to the end"):
        conversation.record(question, response, settings)
    "".join(response)
    message = conversation.record(question, response, settings, marks={"files_indexing": True})
    chat = conversation.chat
    assert [m.role for m in chat.messages] == ["user", "assistant"]
    assert chat.title == key_phrase_title(question, message.content)  # offline: key phrases
    assert message.sources[0].file_name == SPEECH and len(message.sources) <= 2
    assert message.trace["chat_mode"] == "context"
    assert message.trace["retrieval_mode"] == "keyword"
    assert message.trace["files_indexing"] is True
    assert message.trace["notes"][ROUTE_NOTE]["kind"] == RETRIEVAL
    assert all("messages" not in call for call in message.trace["llm_calls"])  # compact
    assert chat.settings["similarity_top_k"] == 2 and chat.settings["embed_model"]
    assert chat.chat_mode == "context" and chat.llm == chat.settings["llm"]
    assert SPEECH in export_markdown(chat)


def test_the_answerers_score_is_saved_in_the_trace_with_its_threshold(ws, monkeypatch):
    monkeypatch.setattr(extractive_answer, "not_found_threshold",
                        lambda embedder=None: 0.42 if embedder is not None else 0.3)
    assert (SCORE_KEY, SAVED_THRESHOLD_KEY) == (TRACE_KEY, THRESHOLD_KEY)  # as the pages read
    conversation = talk(ws)
    message = turn(conversation, "What did the speech say about Ukraine?", TurnSettings())
    assert isinstance(message.trace[SCORE_KEY], float)
    assert message.trace[SAVED_THRESHOLD_KEY] == 0.42  # ranked with the index's model
    message = turn(conversation, "What about jobs?", TurnSettings(retrieval_mode="keyword"))
    assert message.trace[SAVED_THRESHOLD_KEY] == 0.3  # a keyword search ranks by words alone


def test_a_chat_named_before_its_first_answer_keeps_its_name_and_dropped_files_stay(ws):
    conversation = talk(ws)
    conversation.chat.title = "Mine"
    conversation.chat.settings["drops"] = [{"at": 0, "files": ["x.txt"], "job": "j"}]
    turn(conversation, "What did the speech say about Ukraine?", TurnSettings(files=("k",)))
    assert conversation.chat.title == "Mine"
    assert conversation.chat.settings["drops"] and conversation.chat.settings["files"] == ["k"]


def test_memory_is_rebuilt_from_the_saved_history_after_a_failure(ws):
    chat = SavedChat(index="docs", chat_mode="simple")
    chat.add_message("user", "Hi")
    chat.add_message("assistant", "Hello")
    conversation = Conversation(ws, chat, ws.load_index("docs"), FakeLLM())
    conversation.memory.put(Message("user", "a question whose answer failed"))
    conversation.forget_unrecorded()
    assert [(m.role, m.content) for m in conversation.memory.messages] == [("user", "Hi"),
                                                                            ("assistant", "Hello")]
    assert [m.content for m in memory_for_chat(chat, FakeLLM()).messages] == ["Hi", "Hello"]
    cleared = clear_chat(chat)
    assert cleared.messages == [] and cleared.title == "" and cleared.id == chat.id


def test_a_stopped_reply_is_kept_marked_with_the_settings_it_was_asked_with(ws):
    conversation = talk(ws, ChatMode.CONTEXT.value)
    settings = TurnSettings(chat_mode="context", retrieval_mode="keyword")
    response = conversation.ask("What did the speech say about Ukraine?", settings)
    message = record_stopped_turn(conversation.chat, "What did the speech say about Ukraine?",
                                  "The speech said ", response, settings=settings.to_dict())
    assert message.content == "The speech said …" and message.trace["stopped_by_user"]
    assert message.trace["retrieval_mode"] == "keyword" and message.sources
    assert conversation.chat.title  # key phrases of the question
    stopped = record_stopped_turn(SavedChat(index="docs", chat_mode="simple"), "Q", "", None,
                                  settings={})
    assert stopped.content == "…" and stopped.sources == []
    assert stopped.trace["chat_mode"] == "simple"  # the chat's, when the turn's is not known


def test_turn_settings_say_what_to_change():
    with pytest.raises(ValueError, match=r"similarity_top_k \(0\) must be at least 1"):
        TurnSettings(similarity_top_k=0)
    assert TurnSettings(files=("a",)).to_dict()["files"] == ["a"]
