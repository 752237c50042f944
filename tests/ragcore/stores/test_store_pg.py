"""PGVectorStore against the store contract, on a real Postgres with pgvector started by
``engines.postgres_url`` (password authentication; the password only in the environment)."""

from __future__ import annotations

import itertools
import os

import pytest

from ragcore.testing.vector_store import VectorStoreContract

pytest.importorskip("psycopg", reason="the Postgres store needs psycopg: pip install '.[postgres]'")

from ragcore.stores.postgres.pgvector import PGVectorStore  # noqa: E402

_tables = itertools.count()


class TestPGVectorStore(VectorStoreContract):
    @pytest.fixture(autouse=True)
    def _server(self, postgres_url):
        self.url = postgres_url
        self.opened = []
        yield
        for store in self.opened:
            store.drop()
            store.close()

    def make_store(self, metric, tmp_path):
        store = PGVectorStore(self.url, table=f"contract_{next(_tables)}", metric=metric)
        self.opened.append(store)
        return store


def test_a_missing_password_is_reported_with_what_to_set(postgres_url, monkeypatch):
    from ragcore.errors import StoreError

    monkeypatch.delenv("RAGCORE_PG_PASSWORD")
    monkeypatch.delenv("PGPASSWORD", raising=False)
    with pytest.raises(StoreError, match=r"cannot connect to Postgres at .*RAGCORE_PG_PASSWORD"):
        PGVectorStore(postgres_url.replace("ragcore@", "nobody_here@"), table="t")


def test_describe_keeps_no_password(postgres_url):
    url = postgres_url.replace("ragcore@", "ragcore:ragcore-test-secret@")
    store = PGVectorStore(url, table="described")
    try:
        assert "secret" not in str(store.describe().settings) and "secret" not in repr(store)
    finally:
        store.close()


def test_first_connections_to_a_new_database_race_to_create_pgvector(postgres_url):
    """Workers opening a new team database at once each run CREATE EXTENSION IF NOT EXISTS;
    Postgres lets two of them both try, and the loser must still get its connection."""
    from concurrent.futures import ThreadPoolExecutor

    import psycopg

    from ragcore.stores.postgres.connect import connect

    admin = psycopg.connect(postgres_url, autocommit=True,
                            password=os.environ["RAGCORE_PG_PASSWORD"])
    try:
        for attempt in range(4):
            name = f"race_{attempt}_{next(_tables)}"
            admin.execute(f"CREATE DATABASE {name}")
            url = postgres_url.rsplit("/", 1)[0] + f"/{name}"
            with ThreadPoolExecutor(8) as pool:
                opened = list(pool.map(lambda _: connect(url), range(8)))
            for conn in opened:
                assert conn.execute("SELECT '[1,2]'::vector").fetchone() is not None
                conn.close()
            admin.execute(f"DROP DATABASE {name}")
    finally:
        admin.close()
