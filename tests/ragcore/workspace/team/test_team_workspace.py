"""A real workspace seen by two people (``workspace.permitted``): Ana's private index and chat
stay hers, a shared index shows to Bob, nothing leaks through a chat id, and deleting an index
takes its shares with it. Single-user mode is the plain workspace, unchanged."""

from __future__ import annotations

import pytest

from ragcore.errors import AccessDenied, WorkspaceError
from ragcore.workspace import Workspace
from ragcore.workspace.team.accounts import LOCAL_ADMIN
from ragcore.workspace.chats import SavedChat
from ragcore.workspace.jobs.journal import Job
from ragcore.workspace.names import index_uid
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.jobs.runner import JobRunner
from ragcore.workspace.permitted import (
    cancel_job,
    chats_for,
    create_index,
    delete_chat,
    delete_index,
    indexes_for,
    jobs_for,
    open_chat,
    require_index,
    resume_job,
    save_chat,
    start_ingest,
    start_job,
)
from ragcore.workspace.team.team import Team
from support.team_backends import team_backend  # noqa: F401 - the fixture: SQLite, then Postgres


@pytest.fixture
def setup(tmp_path, fake_embedder, team_backend):  # noqa: F811
    workspace = Workspace(tmp_path, embedder=fake_embedder)
    team = Team.open(tmp_path, clock=lambda: 1000.0, hasher=fast_hasher())
    root = team.accounts.set_up("root", "root password")
    ana = team.accounts.create(root, "ana", "ana password")
    bob = team.accounts.create(root, "bob", "bob password")
    create_index(team, ana, workspace, "private")
    create_index(team, ana, workspace, "shared")
    team.share(ana, index_uid(workspace, "shared"), bob, "read")
    chat = SavedChat(index="private", chat_mode="context", title="Ana's salary questions")
    save_chat(team, ana, workspace, chat)
    yield team, workspace, ana, bob, root, chat
    team.close()


def test_bob_sees_only_the_shared_index_and_none_of_anas_chats(setup):
    team, workspace, ana, bob, root, chat = setup
    assert indexes_for(team, bob, workspace) == ["shared"]
    assert indexes_for(team, ana, workspace) == ["private", "shared"]
    assert indexes_for(team, root, workspace) == ["private", "shared"]
    assert chats_for(team, bob, workspace) == []
    assert [c.title for c in chats_for(team, ana, workspace)] == [chat.title]
    assert chats_for(team, root, workspace) == []  # private even from admins


def test_a_chat_id_in_a_url_opens_nothing_and_probes_nothing(setup):
    team, workspace, ana, bob, root, chat = setup
    with pytest.raises(AccessDenied) as theirs:
        open_chat(team, bob, workspace, chat.id)
    with pytest.raises(AccessDenied) as missing:
        open_chat(team, bob, workspace, "no-such-chat")
    assert str(theirs.value) == str(missing.value)
    assert chat.title not in str(theirs.value) and chat.id not in str(theirs.value)
    assert open_chat(team, ana, workspace, chat.id).title == chat.title
    with pytest.raises(AccessDenied):
        delete_chat(team, bob, workspace, chat.id)


def test_bob_cannot_start_a_chat_on_anas_private_index(setup):
    team, workspace, ana, bob, root, chat = setup
    with pytest.raises(AccessDenied, match="ask the index's owner"):
        save_chat(team, bob, workspace, SavedChat(index="private", chat_mode="context"))
    mine = SavedChat(index="shared", chat_mode="context", title="Bob on the shared one")
    save_chat(team, bob, workspace, mine)
    assert [c.title for c in chats_for(team, bob, workspace)] == [mine.title]
    with pytest.raises(AccessDenied):
        save_chat(team, bob, workspace, open_chat(team, ana, workspace, chat.id))


def test_jobs_show_to_whoever_sees_their_index(setup):
    team, workspace, ana, bob, root, chat = setup
    jobs = [Job("ingest", name, index_uid=index_uid(workspace, name))
            for name in ("private", "shared")]
    assert [j.index for j in jobs_for(team, bob, jobs)] == ["shared"]
    assert [j.index for j in jobs_for(team, ana, jobs)] == ["private", "shared"]


def test_only_the_owner_deletes_and_the_shares_go_with_the_index(setup):
    team, workspace, ana, bob, root, chat = setup
    uid = index_uid(workspace, "shared")
    with pytest.raises(AccessDenied, match="owner"):
        delete_index(team, bob, workspace, "shared")
    save_chat(team, bob, workspace, SavedChat(index="shared", chat_mode="context"))
    delete_index(team, ana, workspace, "shared")
    assert team.grants.shares(uid) == [] and team.grants.owner(uid) is None
    assert team.grants.chats_by(bob) == set()
    create_index(team, root, workspace, "shared")  # the same folder: a new, private index
    assert indexes_for(team, bob, workspace) == []
    deletes = team.audit.read(root, event="delete")
    assert deletes[0].actor == "ana" and deletes[0].target == uid


def test_a_missing_index_is_refused_to_members_like_a_private_one(setup):
    team, workspace, ana, bob, root, chat = setup
    with pytest.raises(AccessDenied) as missing:
        require_index(team, bob, workspace, "nothing-here", "open")
    with pytest.raises(AccessDenied) as private:
        require_index(team, bob, workspace, "private", "open")
    assert str(missing.value) == str(private.value)


def test_single_user_mode_is_the_plain_workspace(tmp_path, fake_embedder):
    workspace = Workspace(tmp_path, embedder=fake_embedder)
    create_index(None, LOCAL_ADMIN, workspace, "notes")
    chat = SavedChat(index="notes", chat_mode="context", title="mine")
    save_chat(None, LOCAL_ADMIN, workspace, chat)
    assert indexes_for(None, LOCAL_ADMIN, workspace) == workspace.index_names() == ["notes"]
    assert chats_for(None, LOCAL_ADMIN, workspace) == workspace.list_chats()
    assert open_chat(None, LOCAL_ADMIN, workspace, chat.id).title == "mine"
    assert not (tmp_path / "team.sqlite3").exists()  # no team database is made
    assert delete_index(None, LOCAL_ADMIN, workspace, "notes") == 1
    with pytest.raises(WorkspaceError):
        open_chat(None, LOCAL_ADMIN, workspace, chat.id)


def test_jobs_start_only_where_the_person_may_write_and_a_new_index_is_theirs(setup, tmp_path):
    team, workspace, ana, bob, root, chat = setup
    note = tmp_path / "note.txt"
    note.write_text("Owls hunt at night. Bats do too.", encoding="utf-8")
    runner = JobRunner(workspace.root)
    with pytest.raises(AccessDenied, match="for writing"):
        start_ingest(team, bob, runner, workspace, "shared", [note])  # a read grant only
    job = start_ingest(team, bob, runner, workspace, "bobs", [note])
    assert runner.wait(job.id, timeout=60).state == "done"
    assert team.grants.level(index_uid(workspace, "bobs"), bob) == "owner"
    assert indexes_for(team, ana, workspace) == ["private", "shared"]
    team.share(ana, index_uid(workspace, "shared"), bob, "write")
    done = runner.wait(start_ingest(team, bob, runner, workspace, "shared", [note]).id, 60)
    with pytest.raises(AccessDenied):
        start_job(team, bob, runner, workspace, "delete", "private", "note.txt")
    with pytest.raises(AccessDenied) as theirs:
        resume_job(team, ana, runner, workspace, job.id)  # Bob's index: Ana may not see it
    with pytest.raises(AccessDenied) as missing:
        cancel_job(team, ana, runner, "no-such-job")
    assert str(theirs.value).replace("resume", "cancel") == str(missing.value)
    assert cancel_job(team, bob, runner, done.id) is False  # finished: nothing to cancel
    uploads = team.audit.read(root, event="upload")
    assert [e.actor for e in uploads] == ["bob", "bob"]
