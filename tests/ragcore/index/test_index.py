"""VectorStoreIndex in memory: build, insert, delete, refresh, accessors, search."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import FakeEmbedder
from ragcore.errors import ConfigError, EmbeddingError, StoreError
from ragcore.index import RefreshReport, VectorStoreIndex
from ragcore.stores import SimpleVectorStore
from ragcore.types import Document, MetadataMode, Node


@pytest.fixture
def index(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def _texts(results):
    return [r.node.text for r in results]


def test_from_documents_indexes_every_paragraph(index):
    assert len(index) == 6
    assert index.ref_doc_ids() == ["cats.txt", "markets.txt", "rust.md"]
    info = index.doc_info("cats.txt")
    assert info.node_ids == ["cats.txt#0", "cats.txt#1"]
    assert info.hash == animal_docs()[0].hash
    assert info.metadata["topic"] == "pets"
    assert index.doc_info("nope") is None


def test_retrieve_finds_the_matching_passage(index):
    results = index.as_retriever(similarity_top_k=2).retrieve("why do cats purr")
    assert results[0].node.text == "Cats purr when they are content."
    assert results[0].score >= results[1].score
    assert results[0].file_name == "cats.txt"


def test_stored_vectors_are_the_embedded_node_content(index, fake_embedder):
    ids = index.node_ids()
    vectors = index.get_vectors(ids)
    assert vectors.shape == (6, fake_embedder.dim)
    for node_id, vector in zip(ids, vectors):
        # the embedded text is the node's content with its embeddable metadata
        content = index.get_node(node_id).content(MetadataMode.EMBED)
        assert "topic: " in content
        expected = fake_embedder.embed_batch([content])[0]
        assert np.allclose(vector, expected, atol=1e-6)


def test_node_accessors(index):
    nodes = index.nodes_for_doc("rust.md")
    assert [n.text for n in nodes] == [
        "Rust has ownership and borrowing.",
        "The borrow checker rejects dangling references.",
    ]
    assert index.get_nodes(["rust.md#1", "cats.txt#0"])[1].node_id == "cats.txt#0"
    assert len(list(index.all_nodes())) == 6
    assert "rust.md#0" in index
    assert index.nodes_for_doc("nope") == []
    with pytest.raises(StoreError, match="no node"):
        index.get_node("nope")


def test_insert_adds_and_replaces(index):
    index.insert(Document(text="Owls hunt at night.", doc_id="owls.txt"))
    assert len(index) == 7
    assert _texts(index.as_retriever(similarity_top_k=1).retrieve("owls hunt"))[0] == (
        "Owls hunt at night."
    )
    index.insert(Document(text="Owls sleep by day.\n\nThey are quiet.", doc_id="owls.txt"))
    assert len(index) == 8
    assert [n.text for n in index.nodes_for_doc("owls.txt")] == [
        "Owls sleep by day.",
        "They are quiet.",
    ]
    found = _texts(index.as_retriever(similarity_top_k=8).retrieve("owls"))
    assert "Owls hunt at night." not in found


def test_delete_ref_doc_removes_nodes_and_vectors(index):
    assert index.delete_ref_doc("markets.txt") is True
    assert index.delete_ref_doc("markets.txt") is False
    assert len(index) == 4 and len(index.store) == 4
    assert "markets.txt" not in index.ref_doc_ids()
    results = index.as_retriever(similarity_top_k=10).retrieve("stock market")
    assert all(r.node.ref_doc_id != "markets.txt" for r in results)
    assert len(results) == 4  # every node that is left, none of the deleted document's


def test_refresh_reembeds_only_changed_documents(fake_embedder):
    splitter = ParagraphSplitter()
    docs = animal_docs()
    index = VectorStoreIndex.from_documents(docs, embedder=fake_embedder, splitter=splitter)
    calls = fake_embedder.calls
    changed = Document(
        text="Markets rallied.\n\nStocks rose.", doc_id="markets.txt", metadata=docs[1].metadata
    )
    new = Document(text="Parrots talk.", doc_id="parrots.txt")
    report = index.refresh_ref_docs([docs[0], changed, new, docs[2]])
    assert isinstance(report, RefreshReport)
    assert report.added == ["parrots.txt"]
    assert report.updated == ["markets.txt"]
    assert report.unchanged == ["cats.txt", "rust.md"]
    assert report.flags == [False, True, True, False]
    assert fake_embedder.calls == calls + 1  # one embed call for all changed nodes
    markets = [n.text for n in index.nodes_for_doc("markets.txt")]
    assert markets == ["Markets rallied.", "Stocks rose."]
    assert len(index) == len(index.store) == 7
    again = index.refresh_ref_docs([docs[0], changed, new, docs[2]])
    assert again.changed == [] and fake_embedder.calls == calls + 1


def test_metadata_change_counts_as_a_change(index):
    doc = animal_docs()[0]
    doc.metadata["topic"] = "cats"
    assert index.refresh_ref_docs([doc]).updated == ["cats.txt"]
    assert index.get_node("cats.txt#0").metadata["topic"] == "cats"


def test_constructor_from_nodes(fake_embedder):
    nodes = [
        Node(text="alpha beta", node_id="n1", ref_doc_id="d1"),
        Node(text="gamma delta", node_id="n2", ref_doc_id="d1"),
        Node(text="loose node", node_id="n3"),
    ]
    index = VectorStoreIndex(nodes, embedder=fake_embedder)
    assert len(index) == 3
    assert index.ref_doc_ids() == ["d1"]
    assert index.doc_info("d1").node_ids == ["n1", "n2"]
    assert index.as_retriever(similarity_top_k=1).retrieve("loose")[0].node.node_id == "n3"
    assert index.delete_nodes(["n3", "zz"]) == 1 and len(index) == 2
    # a document known only through its nodes has no hash, so a refresh re-indexes it
    report = index.refresh_ref_docs([Document(text="alpha", doc_id="d1")])
    assert report.updated == ["d1"]


def test_insert_nodes_with_precomputed_vectors(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    nodes = [Node(text=f"t{i}", node_id=f"n{i}", ref_doc_id="d") for i in range(3)]
    vectors = np.eye(3, fake_embedder.dim, dtype=np.float32)
    index.insert_nodes(nodes, vectors=vectors)
    assert fake_embedder.calls == 0
    hits = index.search(vectors[2], top_k=1)
    assert hits[0].node.node_id == "n2"
    with pytest.raises(StoreError, match="shape"):
        index.insert_nodes(nodes, vectors=vectors[:2])


def test_vectors_the_store_refuses_leave_the_index_as_it_was(index):
    revision, count = index.revision, len(index)
    wrong = [Node(text="three dims", node_id="wrong", ref_doc_id="cats.txt")]
    with pytest.raises(StoreError, match="dimension"):
        index.insert_nodes(wrong, vectors=np.ones((1, 3), np.float32))
    assert (len(index), len(index.store), index.revision) == (count, count, revision)
    assert "wrong" not in index and "cats.txt#1" in index
    hits = index.as_retriever(similarity_top_k=1).retrieve("kittens")
    assert hits[0].node.node_id == "cats.txt#1"


def test_search_restricts_to_documents_and_filters(index):
    retriever = index.as_retriever(similarity_top_k=10, doc_ids=["rust.md", "cats.txt"])
    assert {r.node.ref_doc_id for r in retriever.retrieve("market")} == {"rust.md", "cats.txt"}
    retriever = index.as_retriever(similarity_top_k=10, filters={"topic": "finance"})
    assert {r.node.ref_doc_id for r in retriever.retrieve("anything")} == {"markets.txt"}


NEAR_DUPLICATES = {
    "purr-1": "Cats purr when they are content and warm.",
    "purr-2": "Cats purr when they are content and warm indeed.",
    "purr-3": "Cats purr when they are content and very warm.",
    "hunt": "Cats hunt mice when they are hungry.",
    "bonds": "Bond yields rose as investors sold.",
    "rust": "The borrow checker rejects dangling references.",
}


def test_mmr_mode_skips_near_duplicates_that_similarity_returns(fake_embedder):
    nodes = [Node(text=t, node_id=i, ref_doc_id=i) for i, t in NEAR_DUPLICATES.items()]
    index = VectorStoreIndex(nodes, embedder=fake_embedder)
    question = "why do cats purr when content"
    similar = index.as_retriever(similarity_top_k=2, mode="similarity").retrieve(question)
    assert [r.node.node_id for r in similar] == ["purr-1", "purr-2"]
    diverse = index.as_retriever(similarity_top_k=2, mode="mmr").retrieve(question)
    assert diverse[0].node.node_id == "purr-1"
    assert diverse[1].node.node_id not in {"purr-2", "purr-3"}


def test_stats(index):
    stats = index.stats()
    assert stats["documents"] == 3 and stats["nodes"] == 6
    assert stats["model"] == "fake-embedder" and stats["dim"] == 64
    assert stats["metric"] == "cosine" and stats["bytes_on_disk"] is None
    assert stats["characters"] == sum(len(d.text) for d in animal_docs())


def test_custom_store_is_used(fake_embedder):
    store = SimpleVectorStore(metric="dot")
    index = VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter(), store=store
    )
    assert index.store is store and len(store) == 6


def test_bad_collaborators_are_rejected(fake_embedder):
    with pytest.raises(ConfigError, match="VectorStore"):
        VectorStoreIndex(store=object())  # type: ignore[arg-type]
    filled = SimpleVectorStore()
    filled.add(["x"], np.ones((1, 3), np.float32))
    with pytest.raises(ConfigError, match="from_vector_store"):
        VectorStoreIndex(store=filled)
    with pytest.raises(ConfigError, match="Embedder"):
        VectorStoreIndex(embedder=object())  # type: ignore[arg-type]
    index = VectorStoreIndex(embedder=fake_embedder, splitter=ParagraphSplitter())
    with pytest.raises(ConfigError, match="Document"):
        index.refresh_ref_docs(["not a document"])  # type: ignore[list-item]


def test_splitter_must_set_ref_doc_id(fake_embedder):
    class Orphaning(ParagraphSplitter):
        def get_nodes_from_documents(self, documents, **_):
            return [Node(text=d.text) for d in documents]

    index = VectorStoreIndex(embedder=fake_embedder, splitter=Orphaning())
    with pytest.raises(StoreError, match="ref_doc_id"):
        index.insert(Document(text="x", doc_id="d"))
    assert len(index) == 0


def test_embedder_returning_too_few_vectors_is_an_error():
    class Broken(FakeEmbedder):
        def embed_batch(self, texts):
            return super().embed_batch(texts)[:-1]

    with pytest.raises(EmbeddingError, match="returned"):
        VectorStoreIndex.from_documents(
            animal_docs(), embedder=Broken(), splitter=ParagraphSplitter()
        )


def test_warns_once_when_chunks_exceed_the_embedder_window(caplog):
    embedder = FakeEmbedder()
    embedder.max_input_tokens = 256
    index = VectorStoreIndex(embedder=embedder, splitter=ParagraphSplitter(chunk_size=1024))
    with caplog.at_level(logging.WARNING, logger="ragcore"):
        index.insert(animal_docs()[0])
        index.insert(animal_docs()[1])
    warnings = [r for r in caplog.records if "chunk_size 1024" in r.getMessage()]
    assert len(warnings) == 1


def test_progress_reports_embedded_nodes(fake_embedder):
    seen = []
    VectorStoreIndex.from_documents(
        animal_docs(),
        embedder=fake_embedder,
        splitter=ParagraphSplitter(),
        progress=lambda done, total: seen.append((done, total)),
    )
    assert seen[-1] == (6, 6)


def test_default_splitter_is_the_sentence_splitter(fake_embedder):
    from ragcore.chunking import SentenceSplitter

    index = VectorStoreIndex(embedder=fake_embedder)
    assert isinstance(index.splitter, SentenceSplitter)
    index.insert(Document(text="One sentence. Another sentence.", doc_id="d"))
    assert index.nodes_for_doc("d")[0].text.startswith("One sentence.")


def test_query_and_chat_engines_put_retrieved_passages_in_the_prompt(index):
    from ragcore.chat import ChatMode
    from ragcore.llms.fake import FakeLLM
    from ragcore.memory import ChatMemory

    passage = "Cats purr when they are content."

    def answer_from_prompt(messages):
        prompt = "\n".join(m.content for m in messages)
        return "the prompt quotes the passage" if passage in prompt else "no passage in the prompt"

    llm = FakeLLM(default=answer_from_prompt)
    response = index.as_query_engine(llm=llm, similarity_top_k=2).query("why do cats purr?")
    assert response.text == "the prompt quotes the passage"
    assert response.source_nodes[0].node.text == passage
    engine = index.as_chat_engine(chat_mode=ChatMode.CONTEXT, llm=llm, similarity_top_k=2)
    reply = engine.chat("why do cats purr?", ChatMemory())
    assert reply.text == "the prompt quotes the passage"
    # the control: a chat mode that retrieves nothing gets no passage
    simple = index.as_chat_engine(chat_mode=ChatMode.SIMPLE, llm=llm)
    assert simple.chat("why do cats purr?", ChatMemory()).text == "no passage in the prompt"
