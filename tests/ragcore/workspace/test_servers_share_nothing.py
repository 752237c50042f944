"""Two app servers that share nothing but ``RAGCORE_DATABASE_URL`` (issue 35): each has its own
workspace folder; an index lives in the database (``RAGCORE_INDEX_HOME=database``). What one
server ingests, the other lists and answers from at once, without reopening the index; chats,
summaries, shares and jobs are the same on both."""

from __future__ import annotations

import pytest

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.summaries.index import DocumentSummary
from ragcore.workspace.chats import SavedChat, now_iso
from ragcore.workspace.names import index_uid
from ragcore.workspace.permitted import indexes_for
from ragcore.workspace.summaries import open_summary_cache
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from ragcore.workspace.workspace import Workspace
from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database


@pytest.fixture
def servers(tmp_path, pg_team_url, monkeypatch):  # noqa: F811
    monkeypatch.setenv("RAGCORE_INDEX_HOME", "database")
    return (Workspace(tmp_path / "server_a", embedder=FakeEmbedder()),
            Workspace(tmp_path / "server_b", embedder=FakeEmbedder()))


def _files(corpus_dir):
    return sorted((corpus_dir / "rfcs").glob("*.txt"))[:2]


def test_an_index_ingested_on_one_server_answers_on_the_other(servers, corpus_dir):
    a, b = servers
    first, second = _files(corpus_dir)
    a.ingest("shared", [first])
    assert b.index_names() == ["shared"] and not (b.root / "indexes").exists()
    assert b.index_info("shared").files == 1 and b.record("shared").store == "database"
    on_b = b.load_index("shared")
    version = b.index_version("shared")
    assert {h.node.metadata["file_name"] for h in
            on_b.as_retriever(similarity_top_k=20).retrieve("network protocol")} == {first.name}

    a.ingest("shared", [second])  # committed on A: B's open index answers from it at once
    found = on_b.as_retriever(similarity_top_k=40).retrieve("network protocol")
    assert {h.node.metadata["file_name"] for h in found} == {first.name, second.name}
    assert b.index_version("shared") != version  # caches keyed on it reload
    assert [r["file"] for r in b.documents("shared")] == [first.name, second.name]
    assert b.delete_document("shared", first.name)
    assert [r["file"] for r in a.documents("shared")] == [second.name]


def test_chats_summaries_and_shares_are_the_same_on_both(servers, corpus_dir):
    a, b = servers
    a.ingest("shared", _files(corpus_dir)[:1])
    uid = index_uid(a, "shared")
    assert uid and index_uid(b, "shared") == uid  # the catalog's uid names it everywhere
    chat = SavedChat(index="shared", chat_mode="condense_plus_context", title="hello",
                     id="c1", created=now_iso(), updated=now_iso())
    a.save_chat(chat)
    assert [c.id for c in b.list_chats(index="shared")] == ["c1"]
    summary = DocumentSummary(key="k", title="t", text="a summary", method="extractive",
                              doc_ids=("d",))
    open_summary_cache(a.root).put(uid, "fp", summary)
    assert open_summary_cache(b.root).get(uid, "k", "fp").text == "a summary"

    with Team.open(a.root, hasher=fast_hasher()) as team:
        admin = team.accounts.set_up("root", "root password")
        ana = team.accounts.create(admin, "ana", "ana password")
        assert indexes_for(team, ana, a) == []
        team.share(admin, uid, ana, "read")
    with Team.open(b.root, hasher=fast_hasher()) as team:  # server B's own folder
        assert indexes_for(team, team.accounts.require("ana"), b) == ["shared"]
    assert b.delete_index("shared") == 1  # with its chat, on every server
    assert a.index_names() == [] and a.list_chats() == []
