"""The team database on both backends: the workspace's SQLite file, and Postgres (the session's
test server from ``engines.postgres_url``, a new database for each test or module).

``team_backend`` (function scope) and ``backend_env`` (for module-scoped fixtures) set or unset
``RAGCORE_DATABASE_URL`` the way a deployment does, so ``Team.open(root)``, the job journal and
the chat store pick their backend exactly as in the app. A test module imports the fixture.
"""

from __future__ import annotations

import itertools
import os
from contextlib import contextmanager
from typing import Iterator

import pytest

from ragcore.testing.engines import PG_PASSWORD
from ragcore.workspace.team.team_db import DATABASE_ENV

BACKENDS = ("sqlite", "postgres")
_numbers = itertools.count(1)


def fresh_database(server_url: str) -> str:
    """A new, empty database on the test server; returns its URL (no password in it)."""
    import psycopg

    name = f"team_{os.getpid()}_{next(_numbers)}"
    with psycopg.connect(server_url, password=PG_PASSWORD, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return server_url.rsplit("/", 1)[0] + "/" + name


def drop_database(url: str) -> None:
    """Drop a database ``fresh_database`` made, closing what is still connected to it (the
    chat stores and job journals a process keeps per database)."""
    import psycopg

    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", password=PG_PASSWORD, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def backend_env(backend: str, request: pytest.FixtureRequest) -> Iterator[str]:
    """``RAGCORE_DATABASE_URL`` set to a fresh Postgres database, or unset for SQLite; yields
    the URL ("" for SQLite). The database is dropped afterwards."""
    url = fresh_database(request.getfixturevalue("postgres_url")) if backend == "postgres" else ""
    try:
        with pytest.MonkeyPatch.context() as patch:
            if url:
                patch.setenv(DATABASE_ENV, url)
            else:
                patch.delenv(DATABASE_ENV, raising=False)
            yield url
    finally:
        if url:
            drop_database(url)


@pytest.fixture(params=BACKENDS)
def team_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    """Each test that asks for it runs on SQLite, then on Postgres; yields the URL or ""."""
    with backend_env(request.param, request) as url:
        yield url


@pytest.fixture
def pg_team_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh Postgres database, set as ``RAGCORE_DATABASE_URL`` (tests of that backend only)."""
    with backend_env("postgres", request) as url:
        yield url
