"""The first keyword query after a load finds its nodes by row: no map of every node id.

At 1M nodes, the docstore's node -> document map and its node -> row map cost 0.4 s each to
build; a keyword hit knows its row in the saved node segments, so the docstore reads the node
from there (``DocStore.get_at``). These tests check the maps stay unbuilt and the hits stay
right whenever the rows and the files no longer agree (deletes, saves, nodes added since).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.store_fakes import ParagraphSplitter

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document

WORDS = ["owl", "hunt", "night", "policy", "trust", "zero", "risk", "network"]


def _load(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())


def _doc(i: int) -> Document:
    paragraphs = [f"{WORDS[i % 8]} {WORDS[(i + p) % 8]} note {i} {p}" for p in range(3)]
    return Document(text="\n\n".join(paragraphs), doc_id=f"d{i}.txt")


def _saved(path: Path, batches: int = 3) -> None:
    index = VectorStoreIndex(embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    for b in range(batches):  # one segment per commit
        index.refresh_ref_docs([_doc(i) for i in range(b * 5, b * 5 + 5)])
        index.persist(path)


def _expected(index: VectorStoreIndex, query: str) -> list[tuple[str, str]]:
    """The hits as the keyword index names them, each with the text of ``get``."""
    hits = index.keyword_index().search(query, top_k=6)
    return [(i, index._state.docstore.get(i).text) for i, _ in hits]


def _found(index: VectorStoreIndex, query: str) -> list[tuple[str, str]]:
    return [(s.node.node_id, s.node.text) for s in index.keyword_search(query, top_k=6)]


def test_the_first_keyword_query_after_a_load_builds_no_id_map(tmp_path):
    _saved(tmp_path / "ix")
    index = _load(tmp_path / "ix")
    found = _found(index, "owl policy risk")
    docstore = index._state.docstore
    assert len(found) == 6
    assert docstore._members is None and docstore._disk._where is None  # no map built
    assert found == _expected(_load(tmp_path / "ix"), "owl policy risk")


def test_hits_stay_right_after_deletes_saves_and_additions(tmp_path):
    _saved(tmp_path / "ix")
    index = _load(tmp_path / "ix")
    _found(index, "owl policy")  # a keyword index of the loaded rows
    index.delete_ref_doc("d0.txt")
    index.refresh_ref_docs([_doc(40), _doc(41)])
    assert _found(index, "owl policy night") == _expected(index, "owl policy night")
    index.persist(tmp_path / "ix")  # the rows move: segments linked, a new one written
    assert _found(index, "owl policy night") == _expected(index, "owl policy night")
    index.delete_ref_doc("d8.txt")
    assert _found(index, "owl night trust") == _expected(index, "owl night trust")
    assert all(i.split("#")[0] not in ("d0.txt", "d8.txt")
               for i, _ in _found(index, "owl night trust zero"))


def test_a_stale_row_falls_back_to_the_node_id(tmp_path):
    _saved(tmp_path / "ix")
    index = _load(tmp_path / "ix")
    keywords = index.keyword_index()
    rows = keywords.hits("owl", top_k=2)
    node_id = keywords.node_ids[rows[0][0]]
    other = (rows[0][0] + 1) % len(keywords.node_ids)
    node = index._state.docstore.get_at(node_id, other, keywords.source)  # a row holding another
    assert node.node_id == node_id
    assert index._state.docstore.get_at(node_id, rows[0][0], object()).node_id == node_id


def test_a_hybrid_query_after_a_load_builds_no_id_map(tmp_path):
    _saved(tmp_path / "ix")
    index = _load(tmp_path / "ix")
    retriever = index.as_retriever(mode="hybrid", similarity_top_k=5)
    found = [s.node.node_id for s in retriever.retrieve("owl policy risk")]
    docstore = index._state.docstore
    assert found and docstore._members is None and docstore._entries is None
    assert docstore._disk._where is None  # vector hits found by their rows too
    fresh = _load(tmp_path / "ix")
    vector = FakeEmbedder().embed_batch(["owl policy risk"])[0]
    assert [(s.node.node_id, s.node.text) for s in index.search(vector, top_k=8)] == [
        (i, fresh._state.docstore.get(i).text) for i, _ in fresh.store.query(vector, top_k=8)]
    assert index.keyword_index().live is None  # assembled as loaded: every saved row held
    index.delete_ref_doc("d1.txt")  # a change: membership is the document map's again
    assert "d1.txt#0" not in docstore and "d2.txt#0" in docstore
    assert all(not i.startswith("d1.txt") for i in
               (s.node.node_id for s in retriever.retrieve("owl policy risk hunt")))


def test_chained_ids_read_as_the_concatenated_list():
    from ragcore.index.keyword_parts import ChainedIds

    lists = [["a", "b"], [], ["c"], ["d", "e", "f"]]
    ids, flat = ChainedIds(lists), ["a", "b", "c", "d", "e", "f"]
    assert len(ids) == 6 and list(ids) == flat
    assert [ids[i] for i in range(-6, 6)] == flat + flat
    assert ids[1:5] == flat[1:5] and ids[::2] == flat[::2]
    with pytest.raises(IndexError):
        ids[6]


def test_a_position_that_names_another_node_falls_back_to_the_node_id(tmp_path):
    _saved(tmp_path / "ix")
    docstore = _load(tmp_path / "ix")._state.docstore
    ids = docstore.node_ids()
    assert docstore.get_nth(ids[3], 3).node_id == ids[3]
    assert docstore.get_nth(ids[3], 5).node_id == ids[3]  # another node's position
    assert docstore.get_nth("not-there", 3) is None
