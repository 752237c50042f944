"""BM25 postings saved per node segment: exact scores across commits, deletes and merges, no
rebuild at load, old folders and other analyzers rebuilt once, covered by checksums."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.store_fakes import ParagraphSplitter

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import IndexFormatError
from ragcore.index import VectorStoreIndex, keyword_parts, postings
from ragcore.index.disk.folder import current_data
from ragcore.index.keyword import KeywordIndex
from ragcore.index.disk.verify import verify_index
from ragcore.stores.simple import segments
from ragcore.types import Document

WORDS = ["owl", "owls", "hunt", "hunting", "night", "policy", "trust", "zero", "risk", "cat",
         "the", "a", "network", "access", "décision", "東京"]
QUERIES = ["owl hunting at night", "zero trust policy", "risk network access", "décision 東京",
           "cat cat owl"]


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _new() -> VectorStoreIndex:
    return VectorStoreIndex(embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _doc(i: int, words: list[int]) -> Document:
    text = " ".join(WORDS[w % len(WORDS)] for w in words) or "empty"
    return Document(text=f"{text}\n\n{WORDS[i % len(WORDS)]} {i}", doc_id=f"d{i}.txt",
                    metadata={"even": i % 2 == 0})


def _by_id(keywords: KeywordIndex, query: str) -> dict[str, float]:
    scores = keywords.scores(query)
    alive = np.ones(len(scores), bool) if keywords.live is None else keywords.live
    return {i: float(s) for i, s, a in zip(keywords.node_ids, scores.tolist(), alive) if a}


def _check_exact(index: VectorStoreIndex) -> None:
    """The index's keyword scores equal those of one in-memory index over its live nodes."""
    reference = KeywordIndex.build(index.all_nodes())
    keywords = index.keyword_index()
    assert len(keywords) == len(reference)
    for query in QUERIES:
        assert _by_id(keywords, query) == _by_id(reference, query)  # exactly, not approximately
        assert index.keyword_search(query, top_k=3, filters={"even": True}) is not None


steps = st.lists(
    st.tuples(st.lists(st.lists(st.integers(0, 40), max_size=8), min_size=0, max_size=4),
              st.lists(st.integers(0, 30), max_size=3)),
    min_size=1, max_size=5,
)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_saved_postings_score_exactly_as_one_index_over_the_live_nodes(tmp_path_factory,
                                                                       monkeypatch, steps):
    monkeypatch.setattr(segments, "FACTOR", 2)  # merge often
    path = tmp_path_factory.mktemp("ix") / "index"
    index, number = _new(), 0
    for added, deleted in steps:
        docs = []
        for words in added:
            docs.append(_doc(number, words))
            number += 1
        if docs:
            index.refresh_ref_docs(docs)
        for d in deleted:
            index.delete_ref_doc(f"d{d}.txt")
        _check_exact(index)  # saved segments, masked, plus the nodes added since
        index.persist(path)
        index.merge_segments(path)  # the merger's work, after the commit
        index = _load(path)
        _check_exact(index)  # read back from the files alone


def test_loading_reads_the_postings_and_analyzes_nothing(tmp_path, monkeypatch):
    index = _new()
    for i in range(3):  # three commits: three segments
        index.refresh_ref_docs([_doc(i, [i, i + 1, 5])])
        index.persist(tmp_path / "ix")
    calls = []
    monkeypatch.setattr(keyword_parts, "build_postings",
                        lambda *a, **k: calls.append(a) or pytest.fail("analyzed at load"))
    monkeypatch.setattr(keyword_parts, "postings_of_lines",
                        lambda *a, **k: calls.append(a) or pytest.fail("rebuilt at load"))
    loaded = _load(tmp_path / "ix")
    hits = loaded.keyword_search("policy owl", top_k=3)
    assert hits and calls == []
    assert len(loaded.keyword_index().parts) == 3


def test_a_commit_analyzes_only_its_batch_and_a_merge_analyzes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(segments, "FACTOR", 2)
    index = _new()
    index.refresh_ref_docs([_doc(0, [1, 2])])
    index.persist(tmp_path / "ix")
    analyzed = []
    real = postings.build_postings

    def counting(texts, *args):
        texts = list(texts)
        analyzed.append(len(texts))
        return real(texts, *args)

    monkeypatch.setattr(keyword_parts, "build_postings", counting)
    index.refresh_ref_docs([_doc(1, [3, 4])])  # 2 nodes; FACTOR 2: merged with the first two
    index.persist(tmp_path / "ix")
    assert index.merge_segments(tmp_path / "ix")
    assert [n for n in analyzed if n] == [2]  # the batch's two nodes, not the merged four
    assert len(json.loads((current_data(tmp_path / "ix") / "docs.json").read_text())
               ["segments"]) == 1
    _check_exact(_load(tmp_path / "ix"))


def test_a_folder_without_postings_builds_them_once_then_saves_them(tmp_path, monkeypatch,
                                                                   caplog):
    with monkeypatch.context() as patched:  # an index written before postings were saved
        patched.setattr(keyword_parts, "write_postings", lambda *a: None)
        patched.setattr(keyword_parts, "read_postings", lambda *a: None)
        index = _new()
        index.refresh_ref_docs([_doc(i, [i, 7]) for i in range(4)])
        index.persist(tmp_path / "ix")
    assert not (current_data(tmp_path / "ix") / postings.HEADER).exists()
    loaded = _load(tmp_path / "ix")
    with caplog.at_level(logging.INFO, logger="ragcore.index.keyword_parts"):
        _check_exact(loaded)
    assert "building the keyword postings of 8 nodes" in caplog.text
    loaded.insert(_doc(9, [8]))
    loaded.persist(tmp_path / "ix")  # the old segment gets its postings now
    assert (current_data(tmp_path / "ix") / postings.HEADER).exists()
    monkeypatch.setattr(keyword_parts, "build_postings", lambda *a: pytest.fail("rebuilt"))
    _check_exact(_load(tmp_path / "ix"))


def test_postings_of_another_analyzer_are_rebuilt_with_a_log_line(tmp_path, monkeypatch,
                                                                  caplog):
    index = _new()
    index.refresh_ref_docs([_doc(i, [i, 3]) for i in range(3)])
    index.persist(tmp_path / "ix")
    monkeypatch.setattr(postings, "ANALYZER", "some.other.analyzer/9")
    with caplog.at_level(logging.INFO):  # the load reads the header and says so
        loaded = _load(tmp_path / "ix")
        _check_exact(loaded)
    assert "ragcore.search.analysis.term" in caplog.text and "rebuilding" in caplog.text
    loaded.persist(tmp_path / "ix")
    header = json.loads((current_data(tmp_path / "ix") / postings.HEADER).read_text())
    assert header["analyzer"] == "some.other.analyzer/9"  # rewritten for the analyzer now used


def test_postings_files_are_checksummed_and_written_before_the_manifest(tmp_path, monkeypatch):
    path = tmp_path / "ix"
    index = _new()
    index.refresh_ref_docs([_doc(0, [1, 2])])
    index.persist(path)
    manifest = json.loads((path / "manifest.json").read_text())
    assert set(postings.FILES) <= set(manifest["files"])
    index.insert(_doc(1, [5, 6]))
    real = keyword_parts.write_postings
    monkeypatch.setattr(keyword_parts, "write_postings", lambda *a: 1 / 0)  # dies mid-commit
    with pytest.raises(ZeroDivisionError):
        index.persist(path)
    monkeypatch.setattr(keyword_parts, "write_postings", real)
    assert json.loads((path / "manifest.json").read_text()) == manifest  # the old one stands
    assert {h.node.ref_doc_id for h in _load(path).keyword_search("owl", top_k=4)} == {"d0.txt"}
    rows = current_data(path) / "postings_rows.npy"
    data = bytearray(rows.read_bytes())
    data[-1] ^= 0xFF
    rows.write_bytes(bytes(data))
    with pytest.raises(IndexFormatError, match="postings_rows.npy"):
        verify_index(path)


def test_a_header_that_disagrees_with_its_segment_is_damage(tmp_path):
    index = _new()
    index.refresh_ref_docs([_doc(0, [1, 2])])
    index.persist(tmp_path / "ix")
    folder = current_data(tmp_path / "ix")
    with pytest.raises(IndexFormatError, match="do not agree"):
        postings.read_postings(folder, 5)


def test_postings_built_a_block_at_a_time_equal_those_built_at_once(monkeypatch):
    texts = [" ".join(WORDS[(i * 7 + j) % len(WORDS)] for j in range(i % 9)) for i in range(40)]
    whole = postings.build_postings(texts)
    monkeypatch.setattr(postings, "BLOCK_ROWS", 3)  # 14 blocks, merged
    blocks = postings.build_postings(texts)
    assert blocks.terms() == whole.terms()
    for name in ("table", "rows", "tfs", "lengths"):
        assert np.array_equal(getattr(blocks, name), getattr(whole, name)), name
