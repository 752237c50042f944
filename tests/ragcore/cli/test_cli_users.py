"""``ragcore users`` and ``ragcore share``: the command line as the workspace's local admin."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest

from ragcore.cli import main
from ragcore.workspace import Workspace
from ragcore.workspace.team.access import Resource
from ragcore.workspace.team.team import Team
from support.team_backends import team_backend  # noqa: F401 - the fixture: SQLite, then Postgres


@pytest.fixture
def ws(tmp_path, team_backend):  # noqa: F811 - the CLI on either team database
    return tmp_path / "ws"


@pytest.fixture
def run(ws, fake_embedder, capsys, monkeypatch):
    """ragcore on a tmp workspace; ``stdin`` feeds the password lines; returns (code, out, err)."""

    def call(*argv: str, stdin: str = ""):
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        code = main(["--workspace", str(ws), *argv], embedder=fake_embedder)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return call


def test_the_first_account_is_an_admin_and_the_list_shows_roles(run):
    assert run("users", "list")[1].startswith("no accounts yet")
    assert run("users", "add", "ana", stdin="ana's password\n")[1] == "created ana (admin)\n"
    assert run("users", "add", "bob", "--display", "Bob B.", stdin="bob password\n")[0] == 0
    code, out, _ = run("users", "list")
    assert out == "ana  admin\nbob  member  (Bob B.)\n"


def test_disable_reset_and_delete(run, ws):
    run("users", "add", "ana", stdin="ana's password\n")
    run("users", "add", "bob", stdin="bob password\n")
    assert run("users", "disable", "bob")[0] == 0
    assert "bob  member  disabled" in run("users", "list")[1]
    assert run("users", "disable", "bob", "--enable")[0] == 0
    assert run("users", "reset-password", "bob", stdin="a new password\n")[0] == 0
    with Team.open(ws) as team:
        assert team.accounts.authenticate("bob", "a new password").name == "bob"
    assert run("users", "delete", "bob")[0] == 0
    assert "bob" not in run("users", "list")[1]
    audit = run("users", "audit")[1]
    assert "user" in audit and "deleted" in audit and "login" in audit


def test_mistakes_are_one_readable_line(run):
    code, _, err = run("users", "add", "ana", stdin="short\n")
    assert code == 1 and "8 characters" in err
    code, _, err = run("users", "delete", "nobody")
    assert code == 1 and "no account named 'nobody'" in err
    run("users", "add", "ana", stdin="ana's password\n")
    code, _, err = run("users", "delete", "ana")
    assert code == 1 and "last admin" in err


def test_share_an_index_read_only_then_take_it_back(run, ws, fake_embedder):
    run("users", "add", "ana", stdin="ana's password\n")
    run("users", "add", "bob", stdin="bob password\n")
    workspace = Workspace(ws, embedder=fake_embedder)
    workspace.create_index("reports")
    uid = workspace.record("reports").uid
    with Team.open(ws) as team:
        bob = team.accounts.find("bob")
        assert not team.access.can(bob, "open", Resource("index", uid))
    assert run("share", "reports", "--with", "bob", "--read")[1] == \
        "shared index reports with bob (read)\n"
    assert run("share", "reports", "--owner", "ana")[0] == 0
    assert run("share", "reports")[1] == "index reports: owner ana\n  bob: read\n"
    with Team.open(ws) as team:
        assert team.access.can(bob, "query", Resource("index", uid))
        assert not team.access.can(bob, "rename", Resource("index", uid))
    assert run("share", "reports", "--with", "bob", "--remove")[1].startswith("removed share")
    with Team.open(ws) as team:
        assert not team.access.can(bob, "open", Resource("index", uid))


def test_a_share_follows_the_index_through_a_rename(run, ws, fake_embedder):
    run("users", "add", "ana", stdin="ana's password\n")
    workspace = Workspace(ws, embedder=fake_embedder)
    workspace.create_index("reports")
    assert run("rename-index", "reports", "Rapports 2024")[0] == 0
    assert run("share", "Rapports 2024", "--everyone", "--write")[0] == 0
    with Team.open(ws) as team:
        levels = [s.level for s in team.grants.shares(workspace.record("reports").uid)]
    assert levels == ["write"]


def test_an_index_from_an_old_ragcore_gets_a_uid_when_shared(run, ws, fake_embedder):
    run("users", "add", "ana", stdin="ana's password\n")
    workspace = Workspace(ws, embedder=fake_embedder)
    workspace.create_index("old")
    workspace.save_record("old", replace(workspace.record("old"), uid=""))
    assert run("share", "old", "--everyone", "--read")[0] == 0
    assert workspace.record("old").uid


def test_share_needs_a_known_index_and_says_how(run, ws, fake_embedder):
    code, _, err = run("share", "missing", "--everyone", "--read")
    assert code == 1 and "no index named 'missing'" in err
    Workspace(ws, embedder=fake_embedder).create_index("reports")
    code, _, err = run("share", "reports", "--everyone")
    assert code == 1 and "--read, --write, or --remove" in err
