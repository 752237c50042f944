"""SimpleVectorStore against a brute-force reference: metrics, filters, growth, disk.

The protocol's contract runs in test_store_contract.py; this checks what is particular to the
numpy store: matrix growth and compaction, memory-mapped files, lazy columns, the file format.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.errors import IndexFormatError, StoreError
from ragcore.stores import MetadataFilter, MetadataFilters, SimpleVectorStore
from ragcore.stores.simple import rows as matrix_rows
from ragcore.stores.simple.store import top_k_indices
from ragcore.stores.simple.persist import Column, Piece

COLORS = ["red", "green", "blue", "black"]


def _reference_score(metric: str, row: np.ndarray, query: np.ndarray) -> float:
    row, query = row.astype(np.float64), query.astype(np.float64)
    if metric == "dot":
        return float(row @ query)
    if metric == "cosine":
        return float(row @ query / (np.linalg.norm(row) * np.linalg.norm(query)))
    return -math.dist(row.tolist(), query.tolist())


def _random_store(metric: str, n: int = 300, dim: int = 16, seed: int = 0):
    rng = np.random.default_rng(seed)
    vectors = rng.standard_normal((n, dim)).astype(np.float32)
    ids = [f"n{i}" for i in range(n)]
    metadata = [
        {"i": i, "color": COLORS[i % 4], "tags": COLORS[: i % 3], "half": i < n // 2}
        for i in range(n)
    ]
    store = SimpleVectorStore(metric=metric)
    store.add(ids, vectors, metadata)
    return store, ids, vectors, metadata, rng


@pytest.mark.parametrize("metric", ["cosine", "dot", "euclidean"])
def test_top_k_matches_brute_force(metric):
    store, ids, vectors, _, rng = _random_store(metric)
    for _ in range(5):
        query = rng.standard_normal(vectors.shape[1]).astype(np.float32)
        expected = sorted(
            ((_reference_score(metric, v, query), i) for i, v in zip(ids, vectors)), reverse=True
        )[:7]
        hits = store.query(query, top_k=7)
        assert [i for i, _ in hits] == [i for _, i in expected]
        assert [s for _, s in hits] == pytest.approx([s for s, _ in expected], abs=1e-4)


def test_euclidean_scores_are_negative_distances():
    store = SimpleVectorStore(metric="euclidean")
    store.add(["origin", "far"], np.array([[0, 0], [3, 4]], dtype=np.float32))
    hits = store.query(np.zeros(2, dtype=np.float32), top_k=2)
    assert hits == [("origin", pytest.approx(0.0)), ("far", pytest.approx(-5.0))]


def _reference_filter(flt: MetadataFilter, meta: dict) -> bool:
    if flt.key not in meta or meta[flt.key] is None:
        return False
    value, target = meta[flt.key], flt.value
    op = flt.operator.value
    try:
        return {
            "==": lambda: value == target,
            "!=": lambda: value != target,
            ">": lambda: value > target,
            "<": lambda: value < target,
            ">=": lambda: value >= target,
            "<=": lambda: value <= target,
            "in": lambda: value in target,
            "nin": lambda: value not in target,
            "contains": lambda: target in value,
        }[op]()
    except TypeError:
        return False


CASES = [
    MetadataFilter("color", "red", "=="),
    MetadataFilter("color", "red", "!="),
    MetadataFilter("i", 150, ">"),
    MetadataFilter("i", 150, "<"),
    MetadataFilter("i", 150, ">="),
    MetadataFilter("i", 150, "<="),
    MetadataFilter("color", ["red", "blue"], "in"),
    MetadataFilter("color", ["red", "blue"], "nin"),
    MetadataFilter("tags", "green", "contains"),
    MetadataFilter("missing", 1, "!="),
    MetadataFilter("color", 3, ">"),  # incomparable types never match
]


@pytest.mark.parametrize("flt", CASES, ids=lambda f: f"{f.key}{f.operator.value}{f.value}")
def test_every_operator_matches_the_reference(flt):
    store, ids, vectors, metadata, rng = _random_store("cosine")
    query = rng.standard_normal(vectors.shape[1]).astype(np.float32)
    allowed = {i for i, m in zip(ids, metadata) if _reference_filter(flt, m)}
    hits = store.query(query, top_k=len(ids), filters=MetadataFilters(filters=[flt]))
    assert {i for i, _ in hits} == allowed


def test_llamaindex_operator_names_are_accepted():
    assert MetadataFilter("a", [1], "NIN").operator.value == "nin"
    assert MetadataFilter("a", 1, "gte").operator.value == ">="


@pytest.mark.parametrize("condition", ["and", "or"])
def test_conditions_and_nesting_match_the_reference(condition):
    store, ids, vectors, metadata, rng = _random_store("dot")
    inner = MetadataFilters(
        filters=[MetadataFilter("color", "blue"), MetadataFilter("i", 250, ">")], condition="or"
    )
    outer = MetadataFilters(filters=[MetadataFilter("half", True), inner], condition=condition)

    def passes(m):
        inner_ok = m["color"] == "blue" or m["i"] > 250
        return (m["half"] and inner_ok) if condition == "and" else (m["half"] or inner_ok)

    hits = store.query(rng.standard_normal(16).astype(np.float32), top_k=300, filters=outer)
    assert {i for i, _ in hits} == {i for i, m in zip(ids, metadata) if passes(m)}


def test_filters_and_node_ids_combine():
    store, ids, vectors, _, rng = _random_store("cosine")
    red = MetadataFilters(filters=[MetadataFilter("color", "red")])
    hits = store.query(vectors[0], top_k=10, filters=red, node_ids=["n0", "n1", "n4"])
    assert {i for i, _ in hits} == {"n0", "n4"}
    assert store.query(vectors[0], top_k=10, filters={"color": "black", "i": 3}) == [
        ("n3", pytest.approx(_reference_score("cosine", vectors[3], vectors[0]), abs=1e-5))
    ]


def test_filter_masks_are_recomputed_after_changes():
    store, ids, vectors, _, _ = _random_store("cosine", n=20)
    red = MetadataFilters(filters=[MetadataFilter("color", "red")])
    assert len(store.query(vectors[0], top_k=20, filters=red)) == 5
    store.add(["new"], vectors[:1], [{"color": "red"}])
    store.delete(["n0"])
    hits = {i for i, _ in store.query(vectors[0], top_k=20, filters=red)}
    assert "new" in hits and "n0" not in hits and len(hits) == 5


def test_top_k_indices_breaks_ties_by_position():
    scores = np.array([0.5, 0.9, 0.5, 0.9, 0.1])
    assert top_k_indices(scores, 3).tolist() == [1, 3, 0]
    assert top_k_indices(scores, 10).tolist() == [1, 3, 0, 2, 4]


def test_growth_is_amortized():
    store = SimpleVectorStore(metric="dot")
    reallocations, capacity = 0, 0
    for i in range(1000):
        store.add([f"n{i}"], np.full((1, 4), i, dtype=np.float32))
        if store._matrix._tail.shape[0] != capacity:
            reallocations, capacity = reallocations + 1, store._matrix._tail.shape[0]
    assert reallocations <= 14  # geometric growth: O(log n) copies, not one per add
    assert len(store) == 1000
    assert store.vectors()[999, 0] == 999


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["add", "delete", "drop doc", "save"]), st.integers(0, 30)),
        max_size=40,
    )
)
def test_random_adds_and_deletes_match_a_dict(tmp_path_factory, operations):
    store = SimpleVectorStore(metric="dot")
    reference: dict[str, tuple[np.ndarray, str]] = {}
    folder = tmp_path_factory.mktemp("saves")
    for step, (op, key) in enumerate(operations):
        node_id, doc_id = f"n{key}", f"d{key % 4}"
        if op == "save":  # rows move to a mapped file; later changes go on top of it
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(matrix_rows, "MMAP_MIN_BYTES", 0)
                store.persist(folder / str(step))
        elif op == "add":
            vector = np.array([[key, 1.0, -key]], dtype=np.float32) + len(reference)
            store.add([node_id], vector, [{"k": key}], doc_ids=[doc_id])
            reference[node_id] = (vector[0], doc_id)
        elif op == "delete":
            assert store.delete([node_id]) == (1 if reference.pop(node_id, None) is not None else 0)
        else:
            doomed = [i for i, (_, d) in reference.items() if d == doc_id]
            assert store.delete_ref_doc(doc_id) == len(doomed)
            for i in doomed:
                del reference[i]
    assert len(store) == len(reference)
    assert sorted(store.ids()) == sorted(reference)
    for node_id, vector in zip(store.ids(), store.vectors()):
        assert np.array_equal(vector, reference[node_id][0])
        assert store.metadata(node_id) == {"k": int(node_id[1:])}
    assert np.array_equal(store.get_vectors(store.ids()[::-1]), store.vectors()[::-1])


def test_rejects_bad_input():
    store = SimpleVectorStore()
    with pytest.raises(StoreError, match="unique"):
        store.add(["a", "a"], np.ones((2, 3), dtype=np.float32))
    with pytest.raises(StoreError, match="one row per id"):
        store.add(["a"], np.ones((2, 3), dtype=np.float32))
    with pytest.raises(StoreError, match="NaN"):
        store.add(["a"], np.array([[np.nan, 1, 1]], dtype=np.float32))
    with pytest.raises(ValueError, match="metric"):
        SimpleVectorStore(metric="manhattan")


def test_large_files_are_memory_mapped_and_still_writable(tmp_path, monkeypatch):
    store, ids, vectors, _, _ = _random_store("cosine", n=50)
    store.persist(tmp_path)
    monkeypatch.setattr(matrix_rows, "MMAP_MIN_BYTES", 0)
    loaded = SimpleVectorStore.load(tmp_path)
    assert isinstance(loaded._matrix.parts()[0], np.memmap)
    assert loaded.query(vectors[7], top_k=1)[0][0] == "n7"
    loaded.delete(["n7"])
    loaded.add(["x"], vectors[:1])
    assert len(loaded) == 50 and "n7" not in loaded
    # the file on disk is untouched by changes in memory
    assert len(SimpleVectorStore.load(tmp_path)) == 50


def test_metadata_and_document_ids_are_not_parsed_until_needed(tmp_path):
    store, *_ = _random_store("cosine", n=10)
    store.add(["doc-row"], np.ones((1, 16), np.float32), [{"i": -1}], doc_ids=["the doc"])
    store.persist(tmp_path)
    loaded = SimpleVectorStore.load(tmp_path)
    assert loaded._metadata.values is None and loaded._doc_ids.values is None
    loaded.persist(tmp_path / "copy")  # copies the raw bytes
    assert loaded._metadata.values is None and loaded._doc_ids.values is None
    copy = SimpleVectorStore.load(tmp_path / "copy")
    assert copy.metadata("n3")["i"] == 3
    assert copy.delete_ref_doc("the doc") == 1 and "doc-row" not in copy


def test_a_version_1_store_loads_with_unknown_documents(tmp_path):
    """Folders written before stores kept document ids: rows load, no document matches them,
    and the next persist writes the current version with the ids still unknown (null)."""
    v1 = Path(__file__).resolve().parents[2] / "data" / "index_v1"
    store = SimpleVectorStore.load(v1)
    assert len(store) == 6 and store.dim == 64
    assert store.delete_ref_doc("cats.txt") == 0 and len(store) == 6
    store.add(["new"], np.ones((1, 64), np.float32), doc_ids=["new.txt"])
    store.persist(tmp_path)
    assert json.loads((tmp_path / "store.json").read_text())["version"] == 3
    assert json.loads((tmp_path / "vector_doc_ids.json").read_text()) == [None] * 6 + ["new.txt"]
    assert SimpleVectorStore.load(tmp_path).delete_ref_doc("new.txt") == 1


@pytest.mark.parametrize(
    "damage, message",
    [
        (lambda p: (p / "vectors.npy").unlink(), "vectors.npy: file is missing"),
        (lambda p: (p / "vector_ids.json").write_text("[1, 2"), "vector_ids.json: damaged JSON"),
        (lambda p: (p / "vector_ids.json").write_text('["a"]'), "expected 10 ids"),
        (lambda p: (p / "vectors.npy").write_bytes(b"junk"), "vectors.npy: not a readable"),
        (
            lambda p: np.save(p / "vectors.npy", np.ones((9, 16), dtype=np.float32)),
            "holds 9 vectors but 10",
        ),
        (
            lambda p: (p / "store.json").write_text(json.dumps({"format": "x"})),
            "not a ragcore vector store",
        ),
        (lambda p: (p / "vector_doc_ids.json").unlink(), "vector_doc_ids.json: file is missing"),
    ],
)
def test_damaged_folders_raise_index_format_error(tmp_path, damage, message):
    store, *_ = _random_store("cosine", n=10)
    store.persist(tmp_path)
    damage(tmp_path)
    with pytest.raises(IndexFormatError, match=message):
        SimpleVectorStore.load(tmp_path)


def test_damaged_document_ids_are_reported_when_first_needed(tmp_path):
    store, *_ = _random_store("cosine", n=10)
    store.persist(tmp_path)
    (tmp_path / "vector_doc_ids.json").write_text('["d"]')
    loaded = SimpleVectorStore.load(tmp_path)  # not parsed at load: loading stays fast
    with pytest.raises(IndexFormatError, match="vector_doc_ids.json: expected a list of 10"):
        loaded.delete_ref_doc("d")


def test_a_saved_store_keeps_only_rows_added_since_in_memory(tmp_path, monkeypatch):
    """After a save the rows live in the file (mapped), and later rows in a small tail: an
    ingestion saving every batch never holds the whole matrix, and each save writes it all."""
    monkeypatch.setattr(matrix_rows, "MMAP_MIN_BYTES", 0)
    store, ids, vectors, _, _ = _random_store("euclidean", n=40)
    first, second = tmp_path / "g1", tmp_path / "g2"
    store.persist(first)
    base = store._matrix.parts()
    assert len(base) == 1 and isinstance(base[0], np.memmap)
    extra = np.random.default_rng(3).normal(size=(5, vectors.shape[1])).astype(np.float32)
    store.add([f"x{i}" for i in range(5)], extra, [{"k": i} for i in range(5)])
    assert store._metadata.values is None  # appended without parsing the saved rows
    parts = store._matrix.parts()
    assert isinstance(parts[0], np.memmap) and parts[1].shape == (5, vectors.shape[1])
    assert store.query(extra[2], top_k=1)[0][0] == "x2"
    assert store.query(vectors[11], top_k=1)[0][0] == "n11"
    store.persist(second)
    (first / "vectors.npy").unlink()  # the old generation goes; the store copied from it
    loaded = SimpleVectorStore.load(second)
    assert loaded.ids() == ids + [f"x{i}" for i in range(5)]
    np.testing.assert_allclose(loaded.vectors(), np.concatenate([vectors, extra]), rtol=1e-6)
    assert loaded.metadata("x3") == {"k": 3} and loaded.metadata("n4") == store.metadata("n4")
    assert loaded.query(vectors[11], top_k=3) == store.query(vectors[11], top_k=3)
    store.delete(["n0", "x1"])  # a delete brings the survivors into memory, in order
    assert store.ids() == ids[1:] + ["x0", "x2", "x3", "x4"]
    np.testing.assert_allclose(store.get_vectors(["x4", "n39"]),
                               np.stack([extra[4], vectors[39]]), rtol=1e-6)


def test_a_column_read_in_pieces_keeps_and_slices_rows_without_parsing_them():
    column = Column(None, [Piece(b'[1, 2, 3]', "a.json", 3), Piece(b'["x", {"b": null}]', "b", 2)])
    column.extend([7, 8])
    column.keep(np.array([True, False, True, True, True, False, True]))
    assert column.values is None and column.pieces[0].live.tolist() == [0, 2]
    assert column.rows(1, 4) == [3, "x", {"b": None}]  # parsed piece by piece, not kept
    assert column.values is None
    assert column.parsed() == [1, 3, "x", {"b": None}, 8]
