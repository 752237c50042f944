"""Chat titles (key phrases offline, a model's short title otherwise), the saved-chat groups,
and the summary router finding a file by its name typed in chat (issue 18)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ragcore.chat.titles import TITLE_REPLY_CHARS, chat_title, key_phrase_title
from ragcore.errors import LLMConnectionError
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.fake import FakeLLM
from ragcore.summaries.router import SUMMARY, route_question
from ragcore.workspace.chats import ChatStore, SavedChat
from webapp.chat.chat_list import EARLIER, PINNED, TODAY, YESTERDAY, group_chats


@pytest.mark.parametrize("question, title", [
    ("What did the speech say about Ukraine?", "Speech, Ukraine"),
    ("What does PEP 8 say about indentation?", "PEP 8, indentation"),
    ("Tell me about inflation and gas prices", "Inflation, gas prices"),
    ("What is the cost of living?", "Cost of living"),
    ("summarise state_of_the_union.txt", "Summary: state_of_the_union.txt"),
    ("Summarise the state of the union speech", "Summary: state of the union speech"),
])
def test_offline_titles_are_the_questions_key_phrases(question, title):
    assert key_phrase_title(question) == title
    assert chat_title(question, "Extractive answer ...", None) == title


def test_a_question_without_content_words_takes_the_answers():
    assert key_phrase_title("Why?", "Because inflation rose") == "Because inflation rose"


def test_the_extractive_backend_gets_key_phrases_not_a_model_call():
    assert chat_title("What did the speech say about Ukraine?", "x",
                      ExtractiveLLM()) == "Speech, Ukraine"


def test_with_a_model_one_short_call_names_the_chat():
    llm = FakeLLM(['Title: "Ukraine and the sanctions."\nMore words'])
    assert chat_title("What did the speech say about Ukraine?", "It said ...", llm) == (
        "Ukraine and the sanctions")
    assert len(llm.calls) == 1 and "title" in llm.calls[0][0].content.lower()


def test_a_rambling_model_is_cut_off_and_a_failing_one_falls_back():
    rambling = FakeLLM(["word " * 1000], chunk_size=10)
    title = chat_title("About owls?", "Owls hunt.", rambling)
    assert len(title) <= 48 and title.endswith("…")

    def fail(messages):
        raise LLMConnectionError("refused")

    assert chat_title("What did the speech say about Ukraine?", "", FakeLLM([fail])) == (
        "Speech, Ukraine")
    assert TITLE_REPLY_CHARS < 200


def _chat(store, title, updated, pinned=False):
    chat = SavedChat(index="docs", chat_mode="simple", title=title, updated=updated,
                     pinned=pinned)
    store.save(chat)
    return chat


def test_saved_chats_group_by_day_with_pinned_first(tmp_path):
    store = ChatStore(tmp_path)
    now = datetime(2026, 11, 23, 12, 0, tzinfo=timezone.utc)
    _chat(store, "today", "2026-11-23T10:00:00+00:00")
    _chat(store, "yesterday", "2026-11-22T10:00:00+00:00")
    old = _chat(store, "old", "2026-10-01T10:00:00+00:00")
    store.set_pinned(old.id, True)
    groups = group_chats(store.list(), now=now)
    assert [(h, [c.title for c in chats]) for h, chats in groups] == [
        (PINNED, ["old"]), (TODAY, ["today"]), (YESTERDAY, ["yesterday"])]
    store.set_pinned(old.id, False)
    assert group_chats(store.list(), now=now)[-1][0] == EARLIER


NAMES = {"s": "state_of_the_union.txt", "p": "pep-0020.rst", "m": "relocation-memo.docx"}


@pytest.mark.parametrize("question", [
    "summarise state_of_the_union.txt",
    "Summarise the state of the union speech",
    "summarise state_of_the_union",
    "Give me an overview of the State Of The Union",
])
def test_router_finds_a_file_by_its_name_with_or_without_extension(question):
    route = route_question(question, NAMES)
    assert (route.kind, route.document) == (SUMMARY, "s")


def test_router_finds_a_document_by_its_title():
    names = {"h": "page-17.html", "p": "pep-0020.rst"}
    titles = {"h": "Quarterly Harbour Levy Review"}
    route = route_question("summarise the harbour levy review", names, titles)
    assert (route.kind, route.document) == (SUMMARY, "h")
    assert "Quarterly Harbour Levy Review" in route.reason
    assert route_question("summarise the harbour levy review", names).document is None


def test_a_markdown_files_heading_is_its_title_for_the_router(tmp_path):
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.summaries import document_names
    from ragcore.workspace.conversation import document_titles

    notes = tmp_path / "notes-17.md"
    notes.write_text("# Quarterly Harbour Levy Review\n\nThe levy rose by two percent.\n")
    other = tmp_path / "minutes.txt"
    other.write_text("The board met on Tuesday and approved the budget.\n")
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    ws.ingest("docs", [notes, other])
    index = ws.load_index("docs")
    titles = document_titles(index)
    assert list(titles.values()) == ["Quarterly Harbour Levy Review"]
    route = route_question("Summarise the harbour levy review", document_names(index), titles)
    assert document_names(index)[route.document] == "notes-17.md"
