"""Chat history people can use (issue 13): rename, delete all, search, readable dates."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from ragcore.errors import WorkspaceError
from ragcore.present.format import friendly_date
from ragcore.workspace.chats import ChatStore, SavedChat


def saved(store: ChatStore, index: str, question: str, answer: str) -> SavedChat:
    chat = SavedChat(index=index, chat_mode="context")
    chat.add_message("user", question)
    chat.add_message("assistant", answer)
    store.save(chat)
    return chat


def test_title_comes_from_the_first_question_and_can_be_renamed(tmp_path):
    store = ChatStore(tmp_path)
    chat = saved(store, "docs", "What   does the memo say\nabout parking?", "Forty places.")
    assert chat.title == "What does the memo say about parking?"
    store.rename(chat.id, "  Parking   questions ")
    assert store.load(chat.id).title == "Parking questions"
    assert [s.title for s in store.list()] == ["Parking questions"]
    with pytest.raises(WorkspaceError, match="cannot be empty"):
        store.rename(chat.id, "   ")


def test_search_finds_chats_by_title_index_or_message(tmp_path):
    store = ChatStore(tmp_path)
    a = saved(store, "office", "Where do we move?", "To the harbour building.")
    b = saved(store, "recipes", "How long does bread rise?", "An hour.")
    assert [s.id for s in store.list(search="HARBOUR")] == [a.id]
    assert [s.id for s in store.list(search="recipes")] == [b.id]
    assert [s.id for s in store.list(search="bread hour")] == [b.id]
    assert store.list(search="bread harbour") == []
    assert {s.id for s in store.list()} == {a.id, b.id}


def test_delete_all_of_one_index_or_everything(tmp_path):
    store = ChatStore(tmp_path)
    saved(store, "office", "q1", "a1")
    saved(store, "office", "q2", "a2")
    keep = saved(store, "recipes", "q3", "a3")
    assert store.delete_all(index="office") == 2
    assert [s.id for s in store.list()] == [keep.id]
    assert store.delete_all() == 1 and store.list() == []


def test_dates_read_like_today_yesterday_or_a_day_and_month():
    now = datetime(2026, 11, 22, 14, 30, tzinfo=timezone.utc).astimezone()
    local = now.replace(hour=14, minute=5)
    assert friendly_date(local.isoformat(), now=now) == "today 14:05"
    assert friendly_date(local.replace(day=21).isoformat(), now=now).startswith("yesterday")
    assert friendly_date(local.replace(day=3).isoformat(), now=now) == "3 Nov"
    assert friendly_date(local.replace(year=2025, day=3).isoformat(), now=now) == "3 Nov 2025"
    assert friendly_date("not a date", now=now) == "not a date"
