"""The team database on Postgres (``RAGCORE_DATABASE_URL``): servers starting at once migrate
once, check-then-change writes go one at a time across servers, a newer schema is refused, and a
broken connection is opened again. The team tests run on both backends through ``team_backend``."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from ragcore.errors import AccessDenied, WorkspaceError
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.team.pg_team_db import (
    PG_MIGRATIONS,
    open_pg_team_db,
    pg_schema_version,
    pg_sql,
)
from ragcore.workspace.team.team import Team
from ragcore.workspace.team.team_db import open_workspace_db
from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database


@pytest.fixture
def url(pg_team_url):
    return pg_team_url


def test_placeholders_become_psycopgs():
    assert pg_sql("SELECT 1 WHERE a = ? AND b LIKE '5%'") == (
        "SELECT 1 WHERE a = %s AND b LIKE '5%%'")


def test_servers_starting_at_once_migrate_once(url):
    with ThreadPoolExecutor(6) as pool:
        dbs = list(pool.map(lambda _: open_pg_team_db(url), range(6)))
    try:
        assert {pg_schema_version(db) for db in dbs} == {len(PG_MIGRATIONS)}
        assert dbs[0].one("SELECT COUNT(*) FROM schema_version")[0] == 1
    finally:
        for db in dbs:
            db.close()


def test_an_older_schema_is_brought_up_to_date_and_a_newer_one_refused(url, tmp_path):
    open_pg_team_db(url, upto=2).close()
    with Team.open(tmp_path, hasher=fast_hasher()) as team:
        assert pg_schema_version(team.db) == len(PG_MIGRATIONS)
        team.db.execute("UPDATE schema_version SET version = ?", (len(PG_MIGRATIONS) + 1,))
    with pytest.raises(WorkspaceError, match="newer than this ragcore knows"):
        Team.open(tmp_path)


def test_only_one_of_two_servers_sets_up_the_first_admin(url, tmp_path):
    first, second = Team.open(tmp_path, hasher=fast_hasher()), Team.open(tmp_path,
                                                                         hasher=fast_hasher())

    def set_up(pair):
        team, name = pair
        try:
            return team.accounts.set_up(name, f"{name} password").name
        except AccessDenied:
            return None

    try:
        with ThreadPoolExecutor(2) as pool:
            made = list(pool.map(set_up, [(first, "ana"), (second, "bob")] * 4))
        assert len([m for m in made if m]) == 1
        assert len(first.accounts.users()) == 1
    finally:
        first.close()
        second.close()


def test_a_broken_connection_is_opened_again(url, tmp_path):
    with Team.open(tmp_path, hasher=fast_hasher()) as team:
        ana = team.accounts.set_up("ana", "ana password")
        team.db.connection.close()  # as when the server restarted
        assert team.accounts.find("ana") == ana


def test_a_url_that_is_not_postgres_is_refused(tmp_path):
    with pytest.raises(WorkspaceError, match="postgresql://"):
        open_workspace_db(tmp_path, url="mysql://somewhere/db")


def test_an_unreachable_server_says_what_to_check(tmp_path, monkeypatch):
    from ragcore.testing.engines import free_port

    with pytest.raises(WorkspaceError, match="cannot reach the team database.*Postgres runs"):
        open_workspace_db(tmp_path, url=f"postgresql://nobody@127.0.0.1:{free_port()}/x")
