"""VectorStoreContract: the VectorStore protocol as tests, for any store, wherever it is written.

Subclass it in your own test file, name the metrics your store supports, and make an empty
store; every test then runs once per metric::

    from ragcore.testing.vector_store import VectorStoreContract

    class TestMyStore(VectorStoreContract):
        metrics = ("cosine", "dot")

        def make_store(self, metric, tmp_path):
            return MyStore(metric=metric, database=tmp_path / "db")

The suite covers adding and replacing rows, deleting by node id and by document, top-k order
and scores under each metric (checked against numpy), every metadata filter operator and their
nesting, id restriction, ``get_vectors``, ``dim``/``metric``, the empty store, and a round trip
through an index folder: ``VectorStoreIndex.persist`` then ``VectorStoreIndex.load``, which
reopens the store through ``ragcore.stores.registry``, so register your store's opener before
these tests run (at import of your package, or in your test module).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pytest

from ..embeddings.fake import FakeEmbedder
from ..errors import ConfigError, StoreError
from ..index import VectorStoreIndex
from ..stores.base import VectorStore
from ..stores.filters import MetadataFilter as F
from ..stores.filters import MetadataFilters
from ..stores.registry import vector_stores
from ..types import Node

# (id, vector, metadata, document id): no two rows tie for any query below, under any metric.
ROWS: list[tuple[str, list[float], dict[str, Any], str | None]] = [
    ("a", [1.0, 0.0, 0.0, 0.0], {"color": "red", "n": 1, "tags": ["x", "y"]}, "doc1"),
    ("b", [0.9, 0.2, 0.0, 0.0], {"color": "red", "n": 2, "tags": ["y"]}, "doc1"),
    ("c", [0.0, 2.0, 0.1, 0.0], {"color": "blue", "n": 3, "tags": []}, "doc2"),
    ("d", [0.0, 0.1, 0.7, 0.0], {"color": "green", "n": 4}, "doc2"),
    ("e", [0.0, 0.0, 0.5, 0.6], {"n": 5, "tags": ["x"]}, None),
    ("f", [-1.0, 0.3, 0.0, 0.2], {"color": "blue", "n": 6, "tags": ["z"]}, "doc3"),
]
QUERIES = [[1.0, 0.1, 0.0, 0.0], [0.0, 1.0, 0.3, 0.0], [0.1, 0.0, 0.4, 0.8], [-0.5, 0.5, 0.0, 0.3]]
RED = MetadataFilters(filters=(F("color", "red"),))

# filters -> the ids they let through (a row without the key never matches, not even "!=")
FILTER_CASES: list[tuple[str, MetadataFilters, set[str]]] = [
    ("==", MetadataFilters((F("color", "blue", "=="),)), {"c", "f"}),
    ("!=", MetadataFilters((F("color", "blue", "!="),)), {"a", "b", "d"}),
    (">", MetadataFilters((F("n", 4, ">"),)), {"e", "f"}),
    ("<", MetadataFilters((F("n", 2, "<"),)), {"a"}),
    (">=", MetadataFilters((F("n", 4, ">="),)), {"d", "e", "f"}),
    ("<=", MetadataFilters((F("n", 2, "<="),)), {"a", "b"}),
    ("in", MetadataFilters((F("color", ["red", "green"], "in"),)), {"a", "b", "d"}),
    ("nin", MetadataFilters((F("color", ["red", "green"], "nin"),)), {"c", "f"}),
    ("contains", MetadataFilters((F("tags", "x", "contains"),)), {"a", "e"}),
    ("text_match", MetadataFilters((F("color", "re", "text_match"),)), {"a", "b", "d"}),
    ("text_match_insensitive", MetadataFilters((F("color", "RE", "text_match_insensitive"),)),
     {"a", "b", "d"}),
    ("any", MetadataFilters((F("tags", ["x", "z"], "any"),)), {"a", "e", "f"}),
    ("all", MetadataFilters((F("tags", ["x", "y"], "all"),)), {"a"}),
    ("is_empty", MetadataFilters((F("tags", None, "is_empty"),)), {"c", "d"}),
    ("and", MetadataFilters((F("color", "blue"), F("n", 5, ">"))), {"f"}),
    ("or", MetadataFilters((F("color", "green"), F("n", 5)), condition="or"), {"d", "e"}),
    (
        "nested",
        MetadataFilters((
            F("n", 2, ">"),
            MetadataFilters((F("color", "red"), F("tags", "x", "contains")), condition="or"),
        )),
        {"e"},
    ),
    ("empty", MetadataFilters(()), {"a", "b", "c", "d", "e", "f"}),
]


def reference_scores(metric: str, query: Sequence[float]) -> dict[str, float]:
    """What ``query`` should score for every row of ``ROWS`` under ``metric``, in float64."""
    q = np.asarray(query, dtype=np.float64)
    scores = {}
    for node_id, vector, _, _ in ROWS:
        v = np.asarray(vector, dtype=np.float64)
        if metric == "cosine":
            scores[node_id] = float(v @ q / (np.linalg.norm(v) * np.linalg.norm(q)))
        elif metric == "dot":
            scores[node_id] = float(v @ q)
        else:
            scores[node_id] = -float(np.linalg.norm(v - q))
    return scores


def _ids(hits: list[tuple[str, float]]) -> list[str]:
    return [node_id for node_id, _ in hits]


class VectorStoreContract:
    """What every VectorStore must do; subclass, set ``metrics`` and override ``make_store``."""

    metrics: Sequence[str] = ("cosine", "dot", "euclidean")
    score_tolerance = 1e-4  # float32 stores round; databases may compute in float32 too

    def make_store(self, metric: str, tmp_path: Path) -> VectorStore:
        """A new, empty store scoring with ``metric`` (``tmp_path`` is this test's own folder)."""
        raise NotImplementedError("override make_store(metric, tmp_path) in your subclass")

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "metric" in metafunc.fixturenames:
            metafunc.parametrize("metric", list(self.metrics))

    @pytest.fixture
    def store(self, metric: str, tmp_path: Path) -> VectorStore:
        return self.make_store(metric, tmp_path)

    @pytest.fixture
    def filled(self, store: VectorStore) -> VectorStore:
        store.add(
            [r[0] for r in ROWS],
            np.array([r[1] for r in ROWS], dtype=np.float32),
            [dict(r[2]) for r in ROWS],
            doc_ids=[r[3] for r in ROWS],
        )
        return store

    # -- the empty store, dim and metric -----------------------------------------------------

    def test_an_empty_store_finds_nothing(self, store, metric):
        assert len(store) == 0
        assert store.metric == metric
        assert store.query(np.ones(4, dtype=np.float32), top_k=3) == []
        assert store.delete(["a"]) == 0 and store.delete_ref_doc("doc1") == 0

    def test_dim_and_metric_describe_the_rows(self, filled, metric):
        assert len(filled) == len(ROWS)
        assert filled.dim == 4 and filled.metric == metric

    # -- search ------------------------------------------------------------------------------

    @pytest.mark.parametrize("query", QUERIES, ids=lambda q: "q" + "".join(f"{x:+}" for x in q))
    def test_top_k_is_ordered_and_scored_by_the_metric(self, filled, metric, query):
        expected = reference_scores(metric, query)
        best = sorted(expected, key=lambda i: -expected[i])
        hits = filled.query(np.asarray(query, dtype=np.float32), top_k=3)
        assert _ids(hits) == best[:3]
        for node_id, score in hits:
            assert score == pytest.approx(expected[node_id], abs=self.score_tolerance)

    def test_top_k_beyond_the_rows_returns_every_row_best_first(self, filled, metric):
        hits = filled.query(np.asarray(QUERIES[1], dtype=np.float32), top_k=50)
        assert sorted(_ids(hits)) == sorted(r[0] for r in ROWS)
        scores = [s for _, s in hits]
        assert scores == sorted(scores, reverse=True)

    def test_top_k_must_be_a_positive_integer(self, filled):
        with pytest.raises(ConfigError, match="top_k"):
            filled.query(np.ones(4, dtype=np.float32), top_k=0)

    @pytest.mark.parametrize("case", FILTER_CASES, ids=[c[0] for c in FILTER_CASES])
    def test_filters_let_through_exactly_the_matching_rows(self, filled, case):
        _, filters, allowed = case
        hits = filled.query(np.ones(4, dtype=np.float32), top_k=len(ROWS), filters=filters)
        assert set(_ids(hits)) == allowed

    def test_node_ids_restrict_the_search(self, filled):
        query = np.asarray(QUERIES[0], dtype=np.float32)
        hits = filled.query(query, top_k=5, node_ids=["c", "f", "unknown"])
        assert set(_ids(hits)) == {"c", "f"}
        assert filled.query(query, top_k=5, node_ids=[]) == []
        both = filled.query(query, top_k=5, filters=RED, node_ids=["b", "c"])
        assert _ids(both) == ["b"]

    def test_wrong_dimensions_are_refused(self, filled):
        with pytest.raises(StoreError, match="dimension"):
            filled.add(["x"], np.ones((1, 3), dtype=np.float32))
        with pytest.raises(StoreError, match="dimension"):
            filled.query(np.ones(5, dtype=np.float32), top_k=1)

    # -- vectors -----------------------------------------------------------------------------

    def test_get_vectors_returns_rows_in_the_order_asked(self, filled, metric):
        got = np.asarray(filled.get_vectors(["c", "a", "e"]), dtype=np.float64)
        want = np.array([ROWS[2][1], ROWS[0][1], ROWS[4][1]], dtype=np.float64)
        if metric == "cosine":  # a cosine store may keep its rows normalized
            got = got / np.linalg.norm(got, axis=1, keepdims=True)
            want = want / np.linalg.norm(want, axis=1, keepdims=True)
        assert got.shape == (3, 4)
        assert np.allclose(got, want, atol=1e-5)
        assert np.asarray(filled.get_vectors([])).shape[0] == 0
        with pytest.raises(StoreError, match="nope"):
            filled.get_vectors(["a", "nope"])

    # -- changes -----------------------------------------------------------------------------

    def test_adding_an_existing_id_replaces_vector_metadata_and_document(self, filled):
        filled.add(["a"], np.array([[0.0, 0.0, 0.0, 1.0]], np.float32), [{"color": "black"}],
                   doc_ids=["doc9"])
        assert len(filled) == len(ROWS)
        assert _ids(filled.query(np.array([0, 0, 0, 1.0], np.float32), top_k=1)) == ["a"]
        black = MetadataFilters((F("color", "black"),))
        assert _ids(filled.query(np.ones(4, np.float32), top_k=6, filters=black)) == ["a"]
        assert _ids(filled.query(np.ones(4, np.float32), top_k=6, filters=RED)) == ["b"]
        assert filled.delete_ref_doc("doc1") == 1  # only b is left in doc1
        assert filled.delete_ref_doc("doc9") == 1 and len(filled) == len(ROWS) - 2

    def test_delete_removes_rows_and_ignores_unknown_ids(self, filled):
        assert filled.delete(["b", "zzz"]) == 1
        assert filled.delete(["zzz"]) == 0
        assert len(filled) == len(ROWS) - 1
        assert "b" not in _ids(filled.query(np.asarray(ROWS[1][1], np.float32), top_k=6))
        with pytest.raises(StoreError):
            filled.get_vectors(["b"])

    def test_delete_ref_doc_removes_the_document_rows_only(self, filled):
        assert filled.delete_ref_doc("doc1") == 2
        assert filled.delete_ref_doc("doc1") == 0 and filled.delete_ref_doc("nope") == 0
        left = _ids(filled.query(np.ones(4, np.float32), top_k=6))
        assert sorted(left) == ["c", "d", "e", "f"]

    # -- the manifest and a round trip through an index folder --------------------------------

    def test_describe_names_a_registered_store_and_plain_settings(self, store):
        spec = store.describe()
        assert spec.type in vector_stores, f"register {spec.type!r} in ragcore.stores.registry"
        assert json.loads(json.dumps(spec.settings)) == spec.settings

    def test_an_index_over_the_store_persists_and_loads_back(self, store, metric, tmp_path):
        index = VectorStoreIndex(store=store, embedder=FakeEmbedder(dim=4))
        nodes = [
            Node(text=f"row {i}", node_id=i, ref_doc_id=d, metadata=dict(m)) for i, _, m, d in ROWS
        ]
        index.insert_nodes(nodes, vectors=np.array([r[1] for r in ROWS], dtype=np.float32))
        index.persist(tmp_path / "index")
        loaded = VectorStoreIndex.load(tmp_path / "index", embedder=FakeEmbedder(dim=4))
        assert loaded.store.describe() == store.describe()
        assert (loaded.store.dim, loaded.store.metric, len(loaded.store)) == (4, metric, len(ROWS))
        for query in QUERIES:
            vector = np.asarray(query, dtype=np.float32)
            before, after = index.search(vector, top_k=4), loaded.search(vector, top_k=4)
            assert [(h.node.node_id, h.node.text) for h in after] == [
                (h.node.node_id, h.node.text) for h in before
            ]
            assert [h.score for h in after] == pytest.approx([h.score for h in before], abs=1e-5)
        assert {h.node.node_id for h in loaded.search(np.ones(4), top_k=6, filters=RED)} == {
            "a", "b"
        }
        assert loaded.store.delete_ref_doc("doc2") == 2  # document ids survived the trip
        loaded.delete_ref_doc("doc2")
        loaded.persist(tmp_path / "index")
        again = VectorStoreIndex.load(tmp_path / "index", embedder=FakeEmbedder(dim=4))
        assert len(again.store) == len(ROWS) - 2 and "c" not in again
