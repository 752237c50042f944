"""VectorRetriever: the Retriever protocol, trace stages, options."""

from __future__ import annotations

import numpy as np
import pytest
from support.store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import embed_query
from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.retrieval.retrievers import VectorRetriever
from ragcore.stores import MetadataFilter, MetadataFilters
from ragcore.trace import Trace
from ragcore.types import Node


@pytest.fixture
def index(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def test_similarity_mode_returns_the_four_most_similar_by_default(index):
    results = index.as_retriever(mode="similarity").retrieve("kittens chase string")
    assert len(results) == 4
    assert results[0].node.text == "Kittens chase string and yarn."
    assert len(index.as_retriever().retrieve("kittens chase string")) == 4  # hybrid, also 4


def test_returns_top_k_best_first(index):
    results = VectorRetriever(index, similarity_top_k=3).retrieve("bond yields and investors")
    assert len(results) == 3
    assert results[0].node.text == "Bond yields rose as investors sold."
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)


def test_records_embed_and_retrieve_stages(index):
    trace = Trace()
    retriever = index.as_retriever(mode="similarity", similarity_top_k=2)
    results = retriever.retrieve("kittens chase yarn", trace=trace)
    assert [s.name for s in trace.stages] == ["embed query", "retrieve"]
    embed, retrieve = trace.stages
    assert embed.detail["model"] == "fake-embedder" and embed.detail["dim"] == 64
    assert retrieve.detail["top_k"] == 2 and retrieve.detail["nodes"] == 6
    assert [h["node_id"] for h in retrieve.detail["hits"]] == [r.node.node_id for r in results]
    assert all(s.seconds >= 0 for s in trace.stages)


def test_retrieve_by_vector_matches_retrieve(index, fake_embedder):
    retriever = index.as_retriever(mode="similarity", similarity_top_k=4)
    vector = embed_query(fake_embedder, "ownership and borrowing")
    trace = Trace()
    by_vector = retriever.retrieve_by_vector(vector, trace=trace)
    assert [s.name for s in trace.stages] == ["retrieve"]
    by_text = retriever.retrieve("ownership and borrowing")
    assert [r.node.node_id for r in by_vector] == [r.node.node_id for r in by_text]


def test_filters_and_doc_ids(index):
    after_2021 = MetadataFilters(filters=[MetadataFilter("year", 2021, ">")])
    vector = VectorRetriever(index, similarity_top_k=10, filters=after_2021)
    assert {r.node.ref_doc_id for r in vector.retrieve("cats")} == {"markets.txt", "rust.md"}
    vector = VectorRetriever(index, similarity_top_k=10, doc_ids=["cats.txt"])
    assert {r.node.ref_doc_id for r in vector.retrieve("market")} == {"cats.txt"}
    assert VectorRetriever(index, doc_ids=[]).retrieve("cats") == []


def test_empty_index_returns_nothing(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    assert index.as_retriever(mode="similarity").retrieve("anything") == []
    assert index.as_retriever().retrieve("anything") == []


@pytest.fixture
def echoes(fake_embedder):
    """Three near-copies of one passage among passages on other things."""
    texts = [
        "Cats purr when they are content and warm.",
        "Cats purr when they are content and warm indeed.",
        "Cats purr when they are content and very warm.",
        "Cats hunt mice when they are hungry.",
        "Bond yields rose as investors sold.",
        "The borrow checker rejects dangling references.",
    ]
    nodes = [Node(text=t, node_id=f"n{i}", ref_doc_id=f"d{i}") for i, t in enumerate(texts)]
    return VectorStoreIndex(nodes, embedder=fake_embedder)


def test_mmr_reranks_over_fetched_candidates(echoes):
    question = "why do cats purr when content"
    similar = VectorRetriever(echoes, similarity_top_k=3).retrieve(question)
    assert [r.node.node_id for r in similar] == ["n0", "n1", "n2"]  # the three copies
    trace = Trace()
    diverse = VectorRetriever(echoes, similarity_top_k=3, mode="mmr", mmr_threshold=0.2)
    results = diverse.retrieve(question, trace=trace)
    ids = [r.node.node_id for r in results]
    assert ids[0] == "n0" and not {"n1", "n2"} & set(ids[1:])  # one copy, then other topics
    by_id = {r.node.node_id: r.score for r in similar + results}
    assert all(r.score == pytest.approx(by_id[r.node.node_id]) for r in results)  # similarities
    assert trace.stages[-1].detail["candidates"] == 6  # max(20, 4 * 3) asked for, 6 exist
    assert diverse.mmr_fetch_k == 20


def test_mmr_only_picks_among_the_fetched_candidates(echoes):
    """With no more candidates than results, MMR can only reorder the similarity top-k."""
    question = "why do cats purr when content"
    narrow = VectorRetriever(echoes, similarity_top_k=3, mode="mmr", mmr_fetch_k=3)
    assert {r.node.node_id for r in narrow.retrieve(question)} == {"n0", "n1", "n2"}
    plain = VectorRetriever(echoes, similarity_top_k=3, mode="mmr", mmr_threshold=1.0)
    assert [r.node.node_id for r in plain.retrieve(question)] == ["n0", "n1", "n2"]


def test_mmr_keeps_filters_and_document_limits(echoes):
    retriever = echoes.as_retriever(
        similarity_top_k=2, mode="mmr", doc_ids=["d1", "d2", "d4"], mmr_threshold=0.2
    )
    ids = [r.node.node_id for r in retriever.retrieve("cats purr when content")]
    assert ids == ["n1", "n4"]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"similarity_top_k": 0}, "similarity_top_k"),
        ({"similarity_top_k": "3"}, "similarity_top_k"),
        ({"mode": "hybrid"}, "mode"),
        ({"mmr_threshold": -0.1}, "mmr_threshold"),
        ({"mmr_fetch_k": 0}, "mmr_fetch_k"),
        ({"similarity_top_k": 5, "mmr_fetch_k": 4}, "at least similarity_top_k"),
        ({"doc_ids": "cats.txt"}, "doc_ids"),
        ({"filters": ["topic"]}, "filters"),
    ],
)
def test_bad_options_are_rejected(index, options, message):
    with pytest.raises(ConfigError, match=message):
        VectorRetriever(index, **options)


def test_query_must_be_text(index):
    with pytest.raises(ConfigError, match="string"):
        index.as_retriever().retrieve(np.zeros(3))  # type: ignore[arg-type]
