"""VectorRetriever: the Retriever protocol, trace stages, options."""

from __future__ import annotations

import numpy as np
import pytest
from store_fakes import ParagraphSplitter, animal_docs

from ragcore.embeddings import embed_query
from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.retrieval import Retriever, VectorRetriever
from ragcore.stores import MetadataFilter, MetadataFilters
from ragcore.trace import Trace


@pytest.fixture
def index(fake_embedder):
    return VectorStoreIndex.from_documents(
        animal_docs(), embedder=fake_embedder, splitter=ParagraphSplitter()
    )


def test_is_a_retriever(index):
    assert isinstance(index.as_retriever(), Retriever)
    assert isinstance(index.as_retriever(), VectorRetriever)


def test_returns_top_k_best_first(index):
    results = VectorRetriever(index, similarity_top_k=3).retrieve("bond yields and investors")
    assert len(results) == 3
    assert results[0].node.text == "Bond yields rose as investors sold."
    scores = [r.score for r in results]
    assert scores == sorted(scores, reverse=True)


def test_records_embed_and_retrieve_stages(index):
    trace = Trace()
    results = index.as_retriever(similarity_top_k=2).retrieve("kittens chase yarn", trace=trace)
    assert [s.name for s in trace.stages] == ["embed query", "retrieve"]
    embed, retrieve = trace.stages
    assert embed.detail["model"] == "fake-embedder" and embed.detail["dim"] == 64
    assert retrieve.detail["top_k"] == 2 and retrieve.detail["nodes"] == 6
    assert [h["node_id"] for h in retrieve.detail["hits"]] == [r.node.node_id for r in results]
    assert all(s.seconds >= 0 for s in trace.stages)


def test_retrieve_by_vector_matches_retrieve(index, fake_embedder):
    retriever = index.as_retriever(similarity_top_k=4)
    vector = embed_query(fake_embedder, "ownership and borrowing")
    trace = Trace()
    by_vector = retriever.retrieve_by_vector(vector, trace=trace)
    assert [s.name for s in trace.stages] == ["retrieve"]
    by_text = retriever.retrieve("ownership and borrowing")
    assert [r.node.node_id for r in by_vector] == [r.node.node_id for r in by_text]


def test_filters_and_doc_ids(index):
    after_2021 = MetadataFilters(filters=[MetadataFilter("year", 2021, ">")])
    results = index.as_retriever(similarity_top_k=10, filters=after_2021).retrieve("cats")
    assert {r.node.ref_doc_id for r in results} == {"markets.txt", "rust.md"}
    results = index.as_retriever(similarity_top_k=10, doc_ids=["cats.txt"]).retrieve("market")
    assert {r.node.ref_doc_id for r in results} == {"cats.txt"}
    assert index.as_retriever(doc_ids=[]).retrieve("cats") == []


def test_empty_index_returns_nothing(fake_embedder):
    index = VectorStoreIndex(embedder=fake_embedder)
    assert index.as_retriever().retrieve("anything") == []


def test_mmr_mode(index):
    results = index.as_retriever(similarity_top_k=3, mode="mmr", mmr_threshold=0.2).retrieve(
        "cats purr content"
    )
    assert results[0].node.text == "Cats purr when they are content."
    assert len({r.node.node_id for r in results}) == 3


@pytest.mark.parametrize(
    "options, message",
    [
        ({"similarity_top_k": 0}, "similarity_top_k"),
        ({"similarity_top_k": "3"}, "similarity_top_k"),
        ({"mode": "hybrid"}, "mode"),
        ({"mmr_threshold": -0.1}, "mmr_threshold"),
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
