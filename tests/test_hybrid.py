"""HybridRetriever and reciprocal rank fusion: a worked example, trace stages, options, the
retrieval_mode option of the engines, and the real model on NIST SP 800-207."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.errors import ConfigError
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive import ExtractiveLLM
from ragcore.query import QueryEngine
from ragcore.retrieval import (
    HybridRetriever,
    KeywordRetriever,
    Retriever,
    VectorRetriever,
    reciprocal_rank_fusion,
)
from ragcore.trace import Trace
from ragcore.types import Document, Node, ScoredNode

NIST = Path("/work/shared/corpus/nist_pdfs")


def ranking(*ids: str) -> list[ScoredNode]:
    return [ScoredNode(Node(i, node_id=i), 1.0) for i in ids]


def test_reciprocal_rank_fusion_worked_example():
    # a: ranks 1 and 3 -> 1/61 + 1/63; b: 2 and 1 -> 1/62 + 1/61; c: 3 -> 1/63; d: 2 -> 1/62.
    fused = reciprocal_rank_fusion([ranking("a", "b", "c"), ranking("b", "d", "a")], rrf_k=60)
    assert [s.node.node_id for s in fused] == ["b", "a", "d", "c"]
    assert [s.score for s in fused] == pytest.approx(
        [1 / 62 + 1 / 61, 1 / 61 + 1 / 63, 1 / 62, 1 / 63]
    )


def test_fusion_ties_keep_first_seen_order_and_k_changes_the_balance():
    fused = reciprocal_rank_fusion([ranking("v1", "v2"), ranking("k1", "k2")])
    assert [s.node.node_id for s in fused] == ["v1", "k1", "v2", "k2"]
    # With k = 0 a first place (1/1) outweighs two third places (1/3 + 1/3); with k = 60 the
    # node both rankings found wins (2/63 > 1/61): RRF rewards agreement.
    lists = [ranking("top", "x", "both"), ranking("y", "z", "both")]
    assert reciprocal_rank_fusion(lists, rrf_k=0)[0].node.node_id == "top"
    assert reciprocal_rank_fusion(lists, rrf_k=60)[0].node.node_id == "both"


@pytest.fixture
def index(fake_embedder):
    texts = [
        "The policy decision point (PDP) grants or denies access.",
        "Kittens chase yarn across the floor.",
        "Risk assessments inform policy decisions.",
        "The PEP enforces what the PDP decides.",
        "Dogs fetch sticks in the park.",
    ]
    docs = [
        Document(t, doc_id=f"d{i}", metadata={"shelf": "zta" if "P" in t else "other"})
        for i, t in enumerate(texts)
    ]
    return VectorStoreIndex.from_documents(docs, embedder=fake_embedder)


def test_hybrid_fuses_both_rankings_and_records_every_stage(index):
    retriever = index.as_retriever(mode="hybrid", similarity_top_k=3)
    assert isinstance(retriever, HybridRetriever) and isinstance(retriever, Retriever)
    trace = Trace()
    results = retriever.retrieve("What does the PDP decide?", trace=trace)
    names = [s.name for s in trace.stages]
    assert names == ["embed query", "retrieve", "keyword search", "fuse"]
    vector = VectorRetriever(index, similarity_top_k=3).retrieve("What does the PDP decide?")
    words = KeywordRetriever(index, similarity_top_k=3).retrieve("What does the PDP decide?")
    expected = reciprocal_rank_fusion([vector, words])[:3]
    assert [r.node.node_id for r in results] == [r.node.node_id for r in expected]
    assert [r.score for r in results] == pytest.approx([r.score for r in expected])
    hits = trace.stages[-1].detail["hits"]
    similarity = {r.node.node_id: r.score for r in vector}
    assert [h["similarity"] for h in hits] == [similarity.get(h["node_id"]) for h in hits]
    assert all(h["bm25"] is None or h["bm25"] > 0 for h in hits)
    bm25 = {r.node.node_id: r.score for r in words}
    assert [h["bm25"] for h in hits] == [bm25.get(h["node_id"]) for h in hits]
    assert any(h["bm25"] is not None for h in hits)


def test_hybrid_respects_filters_and_doc_ids(index):
    shelf = index.as_retriever(mode="hybrid", similarity_top_k=5, filters={"shelf": "other"})
    assert {r.node.ref_doc_id for r in shelf.retrieve("policy PDP kittens")} == {"d1", "d2", "d4"}
    some = HybridRetriever(index, similarity_top_k=5, doc_ids=["d0", "d1"])
    assert {r.node.ref_doc_id for r in some.retrieve("policy PDP kittens")} <= {"d0", "d1"}
    assert {r.node.ref_doc_id for r in some.retrieve("policy PDP kittens")} == {"d0", "d1"}


def test_hybrid_candidates_default_to_top_k():
    index = VectorStoreIndex()
    assert HybridRetriever(index, similarity_top_k=3).vector.similarity_top_k == 3
    wide = HybridRetriever(index, similarity_top_k=3, candidates=10)
    assert wide.vector.similarity_top_k == wide.keyword.similarity_top_k == 10


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"candidates": 0}, "candidates"),
        ({"rrf_k": -1}, "rrf_k"),
        ({"similarity_top_k": 0}, "similarity_top_k"),
        ({"doc_ids": "d0"}, "doc_ids"),
    ],
)
def test_bad_options_are_explained(index, options, message):
    with pytest.raises(ConfigError, match=message):
        HybridRetriever(index, **options)


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_query_engine_and_chat_engine_take_a_retrieval_mode(index, mode):
    engine = index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode=mode)
    assert type(engine.retriever).__name__ == f"{mode.title()}Retriever"
    trace = Trace()
    answer = engine.query("What does the PDP decide?", trace=trace)
    assert answer.source_nodes and "keyword search" in [s.name for s in trace.stages]
    chat = index.as_chat_engine(
        chat_mode="context", llm=ExtractiveLLM(), retrieval_mode=mode
    )
    assert type(chat.retriever).__name__ == f"{mode.title()}Retriever"


def test_default_retrieval_is_unchanged_and_bad_modes_are_refused(index):
    assert isinstance(index.as_query_engine(llm=ExtractiveLLM()).retriever, VectorRetriever)
    with pytest.raises(ConfigError, match="use one of similarity, mmr, keyword, hybrid"):
        index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode="bm25")
    with pytest.raises(ConfigError, match="'vector' is not supported"):
        index.as_chat_engine(llm=ExtractiveLLM(), retrieval_mode="vector")


@pytest.mark.slow
def test_hybrid_finds_the_policy_decision_point_that_vectors_miss(real_embedder):
    from ragcore.readers import load_file

    pages = [
        *load_file(NIST / "NIST.SP.800-207-ZeroTrustArchitecture.pdf"),
        *load_file(NIST / "NIST.SP800-30r1-RiskAssessment.pdf"),
    ]
    index = VectorStoreIndex.from_documents(pages, embedder=real_embedder)
    question = "What is a policy decision point?"

    def defines_pdp(scored: ScoredNode) -> bool:
        text = scored.node.text.lower()
        return "800-207" in (scored.file_name or "") and "policy decision point (pdp)" in text

    by_meaning = index.as_retriever(similarity_top_k=4).retrieve(question)
    # The small model matches "policy" and "decision" in the risk-assessment guide instead.
    assert not any(defines_pdp(s) for s in by_meaning)
    hybrid = index.as_retriever(mode="hybrid", similarity_top_k=4).retrieve(question)
    assert any(defines_pdp(s) for s in hybrid[:3])
    by_words = index.as_retriever(mode="keyword", similarity_top_k=4).retrieve(question)
    assert defines_pdp(by_words[0])
