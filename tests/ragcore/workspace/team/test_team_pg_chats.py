"""Saved chats on either store (``chats_pg.open_chats``): files in the workspace, or rows of the
shared Postgres database when ``RAGCORE_DATABASE_URL`` is set, where a chat saved by one app
server is listed, opened, renamed and deleted by another at once."""

from __future__ import annotations

import pytest

from ragcore.errors import WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.chats import ChatStore, SavedChat
from ragcore.workspace.chats_pg import PgChatStore, open_chats
from ragcore.workspace.team.pg_team_db import open_pg_team_db
from support.team_backends import pg_team_url, team_backend  # noqa: F401 - the fixtures


def _chat(index: str = "docs", question: str = "What does the contract say?") -> SavedChat:
    chat = SavedChat(index=index, chat_mode="context", index_uid=f"uid-{index}")
    chat.add_message("user", question)
    chat.add_message("assistant", "It says the rent is due monthly.")
    return chat


def test_the_store_follows_the_database_url(tmp_path, team_backend):  # noqa: F811
    store = open_chats(tmp_path)
    assert isinstance(store, PgChatStore) == bool(team_backend)
    assert type(store) is ChatStore or not (tmp_path / "chats").exists()


def test_save_list_search_rename_pin_and_delete(tmp_path, team_backend):  # noqa: F811
    store = open_chats(tmp_path)
    first, second = _chat("docs"), _chat("laws", "Which law applies to rents?")
    first.updated, second.updated = "2026-01-01T00:00:00+00:00", "2026-02-01T00:00:00+00:00"
    store.save(first)
    store.save(second)
    assert [s.id for s in store.list()] == [second.id, first.id]
    assert store.load(first.id) == first and store.exists(second.id)
    assert [s.id for s in store.list(search="law rents")] == [second.id]
    assert store.rename(first.id, "  Rent   questions ").title == "Rent questions"
    assert store.set_pinned(first.id, True).pinned and store.load(first.id).pinned
    assert store.delete_all(index="laws") == 1
    store.delete(first.id)
    assert store.list() == [] and not store.exists(first.id)
    with pytest.raises(WorkspaceError, match="no saved chat"):
        store.load(first.id)
    with pytest.raises(WorkspaceError, match="no saved chat"):
        store.delete(first.id)


@pytest.mark.parametrize("bad_id", ["../settings", "a/b", ""])
def test_chat_ids_are_checked_on_either_store(tmp_path, team_backend, bad_id):  # noqa: F811
    with pytest.raises(WorkspaceError, match="chat id"):
        open_chats(tmp_path).load(bad_id)


def test_a_chat_saved_on_one_server_is_seen_and_deleted_on_the_other(  # noqa: F811
        tmp_path, pg_team_url, fake_embedder):
    one = Workspace(tmp_path / "server-1", embedder=fake_embedder)
    other = PgChatStore(open_pg_team_db(pg_team_url))  # its own connection, as a server has
    try:
        chat = _chat()
        one.save_chat(chat)
        assert [s.id for s in other.list()] == [chat.id]
        other.rename(chat.id, "Renamed on the other server")
        assert one.load_chat(chat.id).title == "Renamed on the other server"
        other.delete(chat.id)
        assert not one.has_chat(chat.id) and not (tmp_path / "server-1" / "chats").exists()
    finally:
        other.db.close()


def test_a_damaged_row_is_skipped_in_the_list_and_refused_when_opened(tmp_path,
                                                                      pg_team_url):  # noqa: F811
    store = open_chats(tmp_path)
    store.save(_chat())
    store.db.execute("INSERT INTO chats (id, index_name, updated, body) VALUES (?, ?, ?, ?)",
                     ("broken", "docs", "2026", "{"))
    assert len(store.list()) == 1
    with pytest.raises(WorkspaceError, match="damaged"):
        store.load("broken")
