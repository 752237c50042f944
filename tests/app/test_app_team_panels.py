"""The admins' accounts and audit panels and an index's sharing panel (webapp/team/team_admin.py,
webapp/indexes/index_sharing.py), headless with AppTest on one-page scripts, acting as a chosen person."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team

TIMEOUT = 30
UID = "uid-reports"


def admin_page():
    import os

    from ragcore.workspace.team.passwords import fast_hasher
    from ragcore.workspace.team.team import Team
    from webapp.team.team_admin import accounts_panel, audit_panel

    with Team.open(os.environ["RAGCORE_WORKSPACE"], hasher=fast_hasher()) as team:
        person = team.accounts.find(os.environ["TEAM_PERSON"])
        accounts_panel(team, person)
        audit_panel(team, person)


def sharing_page():
    import os

    from ragcore.workspace.team.passwords import fast_hasher
    from ragcore.workspace.team.team import Team
    from webapp.indexes.index_sharing import sharing_panel

    with Team.open(os.environ["RAGCORE_WORKSPACE"], hasher=fast_hasher()) as team:
        sharing_panel(team, team.accounts.find(os.environ["TEAM_PERSON"]), "uid-reports",
                      "Reports 2024")


@pytest.fixture
def team_root(tmp_path, monkeypatch):
    monkeypatch.setenv("RAGCORE_WORKSPACE", str(tmp_path))
    with Team.open(tmp_path, hasher=fast_hasher()) as team:
        ana = team.accounts.set_up("ana", "ana password")
        team.accounts.create(ana, "bob", "bob password")
        team.accounts.create(ana, "cem", "cem password")
        team.index_created(ana, UID)
    return tmp_path


def run_as(page, person: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("TEAM_PERSON", person)
    return AppTest.from_function(page, default_timeout=TIMEOUT).run()


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def words(at: AppTest) -> str:
    parts = [*at.markdown, *at.caption, *at.error, *at.success, *at.info]
    return " ".join(str(p.value) for p in parts)


def test_an_admin_creates_disables_and_resets_accounts(team_root, monkeypatch):
    at = run_as(admin_page, "ana", monkeypatch)
    at.text_input(key="new_account_name").input("dee")
    at.text_input(key="new_account_password").input("dee password")
    at = button(at, "Create").click().run()
    assert "Created dee" in words(at)
    at.selectbox(key="change_account_name").select("bob")
    at.radio(key="change_account_what").set_value("Disable")
    at = button(at, "Apply").click().run()
    at.radio(key="change_account_what").set_value("Reset the password")
    at.text_input(key="change_account_password").input("bob's new password")
    at = button(at, "Apply").click().run()
    with Team.open(team_root, hasher=fast_hasher()) as team:
        assert team.accounts.find("dee").role == "member"
        assert team.accounts.find("bob").disabled
        events = [e.detail for e in team.audit.read(team.accounts.find("ana"), event="user")]
    assert events[:3] == ["password reset", "disabled", "created (member)"]


def test_the_last_admin_cannot_be_deleted_from_the_panel(team_root, monkeypatch):
    at = run_as(admin_page, "ana", monkeypatch)
    at.selectbox(key="change_account_name").select("ana")
    at.radio(key="change_account_what").set_value("Delete")
    at = button(at, "Apply").click().run()
    assert "last admin" in words(at)


def test_a_member_gets_neither_the_accounts_nor_the_audit_log(team_root, monkeypatch):
    at = run_as(admin_page, "bob", monkeypatch)
    assert "Only an admin manages accounts" in words(at)
    assert not at.dataframe and not at.text_input


def test_the_owner_shares_read_only_and_takes_it_back(team_root, monkeypatch):
    at = run_as(sharing_page, "ana", monkeypatch)
    assert "Private" in words(at)
    at.selectbox(key=f"share_with_{UID}").select("bob")
    at.radio(key=f"share_level_{UID}").set_value("read")
    at = button(at, "Share").click().run()
    assert "bob: can read and chat" in words(at)
    at = run_as(sharing_page, "bob", monkeypatch)
    assert "You can read and chat" in words(at) and not at.selectbox
    at = run_as(sharing_page, "cem", monkeypatch)
    assert words(at) == "" and not at.button  # cem may not see it: nothing at all
    at = run_as(sharing_page, "ana", monkeypatch)
    at = button(at, "Remove").click().run()
    assert "Private" in words(at)
    with Team.open(team_root, hasher=fast_hasher()) as team:
        assert team.grants.shares(UID) == []
