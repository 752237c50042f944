"""What the contract does not reach in the database stores: a selective filter still returns k
rows (Postgres falls back to an exact scan when its HNSW walk comes back short), filters Chroma
cannot express (string ranges, list equality) evaluated exactly, and hostile keys and values
that stay data (bound parameters), checked against the exact numpy store."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ragcore.stores import MetadataFilter as F
from ragcore.stores import MetadataFilters, SimpleVectorStore

pytest.importorskip("chromadb", reason="needs chromadb: pip install '.[chroma]'")

from ragcore.stores.chroma import ChromaVectorStore  # noqa: E402
from ragcore.stores.postgres.pgvector import PGVectorStore  # noqa: E402

N, DIM = 3000, 16
_tables = itertools.count()


def _rows():
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((N, DIM)).astype(np.float32)
    metadata = [{"rare": i % 200 == 0, "name": f"item{i:04d}", "tags": [f"t{i % 3}"],
                 "pair": [i % 2, 1]} for i in range(N)]
    return [f"n{i}" for i in range(N)], vectors, metadata, rng


@pytest.fixture(scope="module", params=["chroma", "postgres"])
def stores(request, tmp_path_factory):
    ids, vectors, metadata, rng = _rows()
    if request.param == "chroma":
        store = ChromaVectorStore(path=tmp_path_factory.mktemp("c"), collection="filters")
    else:
        store = PGVectorStore(request.getfixturevalue("postgres_url"),
                              table=f"filters_{next(_tables)}")
    exact = SimpleVectorStore()
    for s in (store, exact):
        s.add(ids, vectors, metadata)
    yield store, exact, rng
    if hasattr(store, "close"):
        store.drop()
        store.close()


CASES = [
    MetadataFilters((F("rare", True),)),  # 15 of 3,000 rows
    MetadataFilters((F("name", "item2990", ">"),)),  # a string range: 9 rows
    MetadataFilters((F("name", "item0005", "<="), F("tags", "t0", "contains"))),
    MetadataFilters((F("pair", [1, 1]),)),  # equality with a list
    MetadataFilters((F("name", ["item0001", "item0002", "nope"], "in"),)),
]


@pytest.mark.parametrize("filters", CASES, ids=["rare", "str>", "str<=&contains", "list==", "in"])
def test_filtered_search_returns_what_exact_search_returns(stores, filters):
    store, exact, rng = stores
    for _ in range(5):
        query = rng.standard_normal(DIM).astype(np.float32)
        want = exact.query(query, top_k=5, filters=filters)
        got = store.query(query, top_k=5, filters=filters)
        assert [i for i, _ in got] == [i for i, _ in want]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-4)


def test_hostile_keys_and_values_stay_data(stores):
    store, _, rng = stores
    query = rng.standard_normal(DIM).astype(np.float32)
    for key, value in [("x'); DROP TABLE filters; --", "1"), ("name", "a' OR '1'='1"),
                       ("name", "%s"), ("{}", "{}")]:
        assert store.query(query, top_k=5, filters=MetadataFilters((F(key, value),))) == []
    assert len(store) == N
