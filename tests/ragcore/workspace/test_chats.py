"""Saved chats: save, list, reopen, delete, and export as Markdown or JSON with sources."""

from __future__ import annotations

import json

import pytest

from ragcore.errors import WorkspaceError
from ragcore.types import Node, ScoredNode
from ragcore.workspace.chats import ChatStore, SavedChat, export_json, export_markdown


def _chat() -> SavedChat:
    chat = SavedChat(index="nist", chat_mode="condense_plus_context", response_mode="compact",
                     llm="extractive", settings={"similarity_top_k": 4, "temperature": 0.1})
    chat.add_message("user", "What is a zero trust architecture?")
    node = Node(text="Zero trust assumes there is no implicit trust granted to assets.",
                ref_doc_id="/docs/sp800-207.pdf#page=10",
                metadata={"file_name": "sp800-207.pdf", "page_label": "10"})
    chat.add_message("assistant", "It assumes no implicit trust.",
                     sources=[ScoredNode(node, 0.8123)], trace={"stages": []})
    return chat


def test_save_list_load_delete_round_trip(tmp_path):
    store = ChatStore(tmp_path / "chats")
    chat = _chat()
    assert not store.exists(chat.id)
    store.save(chat)
    assert store.exists(chat.id)
    [summary] = store.list()
    assert summary.id == chat.id
    assert summary.title == "What is a zero trust architecture?"
    assert summary.messages == 2
    loaded = store.load(chat.id)
    assert loaded == chat
    assert loaded.messages[1].sources[0].page == "10"
    store.delete(chat.id)
    assert store.list() == [] and not store.exists(chat.id)
    with pytest.raises(WorkspaceError, match="no saved chat"):
        store.load(chat.id)


def test_list_is_newest_first_and_skips_damaged_files(tmp_path):
    store = ChatStore(tmp_path)
    old, new = _chat(), _chat()
    old.id, new.id = "a-old", "b-new"
    old.updated, new.updated = "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00"
    store.save(old)
    store.save(new)
    (tmp_path / "broken.json").write_text("{")
    assert [s.id for s in store.list()] == ["b-new", "a-old"]


@pytest.mark.parametrize("bad_id", ["../settings", "a/b", "", ".hidden"])
def test_chat_ids_cannot_escape_the_folder(tmp_path, bad_id):
    with pytest.raises(WorkspaceError, match="chat id"):
        ChatStore(tmp_path).load(bad_id)


def test_markdown_export_has_messages_sources_and_settings():
    text = export_markdown(_chat())
    assert text.startswith("# What is a zero trust architecture?")
    assert "Chat mode: `condense_plus_context`" in text
    assert "It assumes no implicit trust." in text
    assert "1. sp800-207.pdf, page 10 (score 0.812)" in text
    assert "> Zero trust assumes" in text
    assert "- similarity_top_k: `4`" in text


def test_json_export_round_trips():
    chat = _chat()
    data = json.loads(export_json(chat))
    assert data["format"] == "ragcore-chat"
    assert data["messages"][1]["sources"][0]["file_name"] == "sp800-207.pdf"
    assert SavedChat.from_dict(data) == chat


def test_foreign_or_newer_files_are_refused():
    with pytest.raises(WorkspaceError, match="not a ragcore chat"):
        SavedChat.from_dict({"index": "x"})
    data = _chat().to_dict() | {"version": 99}
    with pytest.raises(WorkspaceError, match="upgrade"):
        SavedChat.from_dict(data)
