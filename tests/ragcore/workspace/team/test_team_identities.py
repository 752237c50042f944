"""Accounts of people signed in by an identity provider (OIDC claims, as ``st.user`` gives
them): one account per issuer and subject, made at the first sign-in, never with a password."""

from __future__ import annotations

import sqlite3

import pytest

from ragcore.errors import ConfigError, LoginRefused
from ragcore.workspace.team.identities import sign_in_identity
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.team_db import TEAM_FILE, open_team_db, schema_version
from support.team_backends import team_backend  # noqa: F401 - the fixture: SQLite, then Postgres

ISSUER = "https://login.example.org"


@pytest.fixture
def team(tmp_path, team_backend):  # noqa: F811
    with Team.open(tmp_path, clock=lambda: 5.0, hasher=fast_hasher()) as team:
        yield team


def test_the_first_person_is_the_admin_and_returns_to_the_same_account(team):
    ana = sign_in_identity(team.accounts, ISSUER, "sub-1", email="Ana.Lopez@example.org",
                           display="Ana López")
    bob = sign_in_identity(team.accounts, ISSUER, "sub-2", email="bob@example.org")
    again = sign_in_identity(team.accounts, ISSUER, "sub-1", email="new-address@example.org")
    assert (ana.name, ana.role, ana.display) == ("ana.lopez", "admin", "Ana López")
    assert bob.role == "member" and again == ana


def test_same_local_part_at_another_subject_gets_another_name(team):
    first = sign_in_identity(team.accounts, ISSUER, "sub-1", email="sam@a.example")
    other = sign_in_identity(team.accounts, "https://other.example", "sub-1", email="sam@b.example")
    assert (first.name, other.name) == ("sam", "sam-2")


def test_no_password_opens_an_account_made_by_the_provider(team):
    sign_in_identity(team.accounts, ISSUER, "sub-1", email="ana@example.org")
    for guess in ("!identity-provider", "password", ""):
        with pytest.raises(LoginRefused):
            team.accounts.authenticate("ana", guess)


def test_a_disabled_or_unknown_person_is_refused(team):
    admin = sign_in_identity(team.accounts, ISSUER, "sub-1", email="ana@example.org")
    bob = sign_in_identity(team.accounts, ISSUER, "sub-2", email="bob@example.org")
    team.accounts.set_disabled(admin, bob)
    with pytest.raises(LoginRefused, match="disabled"):
        sign_in_identity(team.accounts, ISSUER, "sub-2", email="bob@example.org")
    with pytest.raises(LoginRefused, match="ask an admin"):
        sign_in_identity(team.accounts, ISSUER, "sub-3", email="eve@example.org", create=False)
    with pytest.raises(ConfigError, match="issuer or subject"):
        sign_in_identity(team.accounts, ISSUER, "", email="eve@example.org")


def test_a_version_2_database_gains_the_identity_column(tmp_path):
    old = open_team_db(tmp_path / TEAM_FILE, upto=2)
    old.execute("INSERT INTO users (name, password_hash, role, created) VALUES "
                "('ana', 'x', 'admin', 1)")
    old.close()
    with Team.open(tmp_path, hasher=fast_hasher()) as team:
        assert schema_version(team.db) == 3
        carl = sign_in_identity(team.accounts, ISSUER, "sub-9", email="carl@example.org")
        assert carl.role == "member" and team.accounts.find("ana").is_admin
        with pytest.raises(sqlite3.IntegrityError):  # one account per identity, enforced
            team.db.execute("UPDATE users SET identity = ? WHERE name = 'ana'",
                            (f"{ISSUER}#sub-9",))
