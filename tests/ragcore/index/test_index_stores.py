"""Stores behind the index: any registered store persists and loads; attaching to a filled store.

``DictVectorStore`` (tests/support/dict_store.py) stands for a store from another package: it is not in
ragcore, registers itself on import, and must work through the index exactly like the default.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from support.dict_store import DictVectorStore
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import ConfigError, IndexFormatError
from ragcore.index import VectorStoreIndex
from ragcore.stores import SimpleVectorStore
from ragcore.stores.registry import register_vector_store, vector_stores
from ragcore.types import Document, Node

QUESTIONS = ("why do cats purr", "bond yields and investors", "dangling references", "owls")


def _answers(index: VectorStoreIndex, **options) -> list[list[tuple[str, float]]]:
    return [
        [(r.node.node_id, round(r.score, 5)) for r in index.as_retriever(**options).retrieve(q)]
        for q in QUESTIONS
    ]


def test_a_store_from_outside_ragcore_persists_and_loads_with_its_index(fake_embedder, tmp_path):
    index = VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter(),
        store=DictVectorStore(metric="dot"),
    )
    index.persist(tmp_path / "index")
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["store"] == {"type": "DictVectorStore", "settings": {"metric": "dot"}}
    assert "vectors.npy" not in {p.name for p in (tmp_path / "index").iterdir()}
    loaded = VectorStoreIndex.load(
        tmp_path / "index", embedder=FakeEmbedder(), splitter=ParagraphSplitter()
    )
    assert isinstance(loaded.store, DictVectorStore) and loaded.store.metric == "dot"
    assert _answers(loaded) == _answers(index)
    assert _answers(loaded, mode="mmr", similarity_top_k=3) == _answers(
        index, mode="mmr", similarity_top_k=3
    )
    loaded.delete_ref_doc("markets.txt")
    loaded.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    loaded.persist(tmp_path / "index")
    again = VectorStoreIndex.load(tmp_path / "index", embedder=FakeEmbedder())
    assert _answers(again) == _answers(loaded)
    assert "markets.txt" not in again.ref_doc_ids() and len(again.store) == 5


@pytest.fixture
def unregistered():
    """DictVectorStore taken out of the registry for one test, as if its package were absent."""
    vector_stores.unregister("DictVectorStore")
    yield
    register_vector_store("DictVectorStore", DictVectorStore.open, replace=True)


def test_loading_a_store_nobody_registered_says_which_and_how(fake_embedder, tmp_path, request):
    index = VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter(),
        store=DictVectorStore(),
    )
    index.persist(tmp_path / "index")
    request.getfixturevalue("unregistered")
    with pytest.raises(IndexFormatError, match=r"'DictVectorStore' store, which is not registered"
                       r".*register_vector_store\('DictVectorStore', opener\)"):
        VectorStoreIndex.load(tmp_path / "index")
    # persisting such a store is refused too, before anything on disk changes
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    with pytest.raises(ConfigError, match="'DictVectorStore', which is not registered"):
        index.persist(tmp_path / "index")
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text())
    assert manifest["counts"]["documents"] == 3 and manifest["revision"] == 1


def _filled_store(nodes: list[Node], embedder: FakeEmbedder) -> SimpleVectorStore:
    store = SimpleVectorStore()
    vectors = embedder.embed_batch([n.text for n in nodes])
    store.add([n.node_id for n in nodes], vectors, [n.metadata for n in nodes],
              doc_ids=[n.ref_doc_id for n in nodes])
    return store


def test_from_vector_store_attaches_without_embedding(fake_embedder):
    nodes = ParagraphSplitter().get_nodes_from_documents(animal_docs())
    store = _filled_store(nodes, FakeEmbedder())
    index = VectorStoreIndex.from_vector_store(store, nodes=nodes, embedder=fake_embedder)
    assert index.store is store and len(index) == 6 and fake_embedder.calls == 0
    hits = index.as_retriever(similarity_top_k=1).retrieve("why do cats purr")
    assert hits[0].node.text == "Cats purr when they are content."
    assert index.ref_doc_ids() == ["cats.txt", "markets.txt", "rust.md"]
    # its documents are known only through their nodes (no content hash): a refresh re-embeds
    report = index.refresh_ref_docs(animal_docs())
    assert sorted(report.updated) == ["cats.txt", "markets.txt", "rust.md"]
    assert index.refresh_ref_docs(animal_docs()).changed == []


def test_from_vector_store_needs_the_nodes_of_exactly_the_stored_vectors(fake_embedder):
    nodes = ParagraphSplitter().get_nodes_from_documents(animal_docs())
    store = _filled_store(nodes, fake_embedder)
    with pytest.raises(ConfigError, match="holds 6 vectors but 0 nodes.*keeps no node text"):
        VectorStoreIndex.from_vector_store(store)
    with pytest.raises(ConfigError, match="holds 6 vectors but 5 nodes"):
        VectorStoreIndex.from_vector_store(store, nodes=nodes[:5])
    stranger = Node(text="not in the store", node_id="stranger", ref_doc_id="x")
    with pytest.raises(ConfigError, match="no vector.*'stranger'"):
        VectorStoreIndex.from_vector_store(store, nodes=[*nodes[:5], stranger])
    empty = VectorStoreIndex.from_vector_store(SimpleVectorStore(), embedder=fake_embedder)
    assert len(empty) == 0 and empty.as_retriever().retrieve("cats") == []


def test_the_store_registry_opens_what_describe_names(fake_embedder, tmp_path):
    store = SimpleVectorStore(metric="euclidean")
    store.add(["a", "b"], np.eye(2, 3, dtype=np.float32), doc_ids=["d", None])
    spec = store.describe()
    store.persist(tmp_path)
    reopened = vector_stores.get(spec.type)(tmp_path, spec.settings)
    assert reopened.describe() == spec
    assert reopened.query(np.array([1, 0, 0], np.float32), top_k=1) == [("a", 0.0)]
    assert reopened.delete_ref_doc("d") == 1
