"""PGVectorStore against the store contract, on a real Postgres with pgvector started by
``engines.postgres_url`` (password authentication; the password only in the environment)."""

from __future__ import annotations

import itertools

import pytest

from ragcore.testing.vector_store import VectorStoreContract

pytest.importorskip("psycopg", reason="the Postgres store needs psycopg: pip install '.[postgres]'")

from ragcore.stores.pgvector import PGVectorStore  # noqa: E402

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
