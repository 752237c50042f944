"""HybridRetriever and rank fusion (relative score, distribution-based, reciprocal rank): worked
examples, trace stages, options, hybrid as the default retrieval mode of the index and its
engines, and the real model on NIST SP 800-207."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragcore.errors import ConfigError
from ragcore.search.fusion import (
    fuse,
    reciprocal_rank_fusion,
    scaled,
    score_fusion,
    with_side_heads,
)
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.query import QueryEngine
from ragcore.retrieval.retrievers import (
    DEFAULT_MODE,
    HybridRetriever,
    KeywordRetriever,
    Retriever,
    VectorRetriever,
)
from ragcore.trace import Trace
from ragcore.types import Document, Node, ScoredNode

NIST = Path("/work/shared/corpus/nist_pdfs")
SHERLOCK = Path("/work/shared/corpus/sherlock_holmes_xhtml")


def ranking(*ids: str) -> list[ScoredNode]:
    return [ScoredNode(Node(i, node_id=i), 1.0) for i in ids]


def scored(*pairs: tuple[str, float]) -> list[ScoredNode]:
    return [ScoredNode(Node(i, node_id=i), s) for i, s in pairs]


def ids(results: list[ScoredNode]) -> list[str]:
    return [r.node.node_id for r in results]


# Meaning ranks a > b > c (cosines), words rank b > d > a (BM25, another scale).
MEANING = scored(("a", 0.9), ("b", 0.5), ("c", 0.1))
WORDS = scored(("b", 10.0), ("d", 6.0), ("a", 2.0))


def test_relative_score_fusion_worked_example():
    # Scaled: meaning a 1, b 0.5, c 0; words b 1, d 0.5, a 0. Equal weights:
    # a 0.5, b 0.75, c 0, d 0.25.
    fused = fuse([MEANING, WORDS])
    assert ids(fused) == ["b", "a", "d", "c"]
    assert [r.score for r in fused] == pytest.approx([0.75, 0.5, 0.25, 0.0])
    # Weighting meaning 0.8: a 0.8, b 0.4 + 0.2 = 0.6, d 0.1, c 0.
    weighted = fuse([MEANING, WORDS], weights=(0.8, 0.2))
    assert ids(weighted) == ["a", "b", "d", "c"]
    assert [r.score for r in weighted] == pytest.approx([0.8, 0.6, 0.1, 0.0])
    # Only the words: the BM25 order, d above a though a is the best by meaning.
    assert ids(fuse([MEANING, WORDS], weights=(0, 1)))[:3] == ["b", "d", "a"]


def test_distribution_based_fusion_scales_over_three_standard_deviations():
    # [1, 2, 3]: mean 2, 3 sd = 2.449, so 1 -> 0.296, 2 -> 0.5, 3 -> 0.704.
    assert scaled([1.0, 2.0, 3.0], dist_based=True) == pytest.approx([0.2959, 0.5, 0.7041], 1e-3)
    # Min-max puts a ranking's last candidate level with a node it lacks (0); here the last
    # candidate keeps a share, so c (last by meaning, absent from words) beats nothing.
    assert scaled([0.9, 0.5, 0.1]) == pytest.approx([1.0, 0.5, 0.0])
    fused = fuse([MEANING, WORDS], method="dist_based_score")
    assert ids(fused) == ["b", "a", "d", "c"]
    assert fused[-1].score > 0 and all(0 <= r.score <= 1 for r in fused)
    # Far outliers are clipped to the ends of 0..1.
    assert scaled([0.0] * 20 + [100.0], dist_based=True)[-1] == 1.0


def test_scaling_edge_cases():
    assert scaled([]) == []
    assert scaled([0.4, 0.4]) == [1.0, 1.0]  # equal scores: each is its ranking's best
    assert scaled([0.0, 0.0]) == [0.0, 0.0]
    assert score_fusion([scored(("x", 3.0)), []]) == [ScoredNode(Node("x", node_id="x"), 0.5)]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "borda"}, "fusion method 'borda' is not supported: use one of relative_score"),
        ({"weights": (1.0,)}, "1 weights for 2 rankings"),
        ({"weights": (1.0, -1.0)}, "must be numbers >= 0"),
        ({"method": "reciprocal_rank", "rrf_k": -1}, "rrf_k"),
    ],
)
def test_bad_fusion_options_are_explained(options, message):
    with pytest.raises(ConfigError, match=message):
        fuse([MEANING, WORDS], **options)


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


def test_side_heads_keep_each_rankings_best_in_the_top_k():
    # Both rankings hold m1..m4; only the words find "rare", and rank it first.
    meaning = scored(("m1", 0.9), ("m2", 0.8), ("m3", 0.7), ("m4", 0.6), ("x", 0.1))
    words = scored(("rare", 12.0), ("m1", 11.0), ("m2", 10.5), ("m3", 10.0), ("m4", 6.0))
    fused = fuse([meaning, words])
    assert "rare" not in ids(fused[:3])  # 0.5 from the words alone, m1..m3 more from both
    kept = with_side_heads(fused, [meaning, words], heads=1, top_k=3)
    assert ids(kept) == ["m1", "m2", "rare"]  # it takes the last place, scores stay ordered
    assert [s.score for s in kept] == sorted((s.score for s in kept), reverse=True)
    assert ids(with_side_heads(fused, [meaning, words], heads=0, top_k=3)) == ids(fused[:3])
    # Heads already in the top k change nothing; a short list is returned whole.
    assert ids(with_side_heads(fused, [meaning, words], heads=1, top_k=6)) == ids(fused)
    assert ids(with_side_heads(fused[:2], [meaning[:1]], heads=2, top_k=4)) == ids(fused[:2])


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
    # Each side hands over its candidates (20 here: more than the index holds).
    vector = VectorRetriever(index, similarity_top_k=20).retrieve("What does the PDP decide?")
    words = KeywordRetriever(index, similarity_top_k=20).retrieve("What does the PDP decide?")
    expected = fuse([vector, words], method="relative_score")[:3]
    assert [r.node.node_id for r in results] == [r.node.node_id for r in expected]
    assert [r.score for r in results] == pytest.approx([r.score for r in expected])
    fuse_stage = trace.stages[-1].detail
    assert fuse_stage["method"] == "relative_score" and fuse_stage["alpha"] == 0.5
    assert fuse_stage["candidates"] == 20
    hits = fuse_stage["hits"]
    similarity = {r.node.node_id: r.score for r in vector}
    assert [h["similarity"] for h in hits] == [similarity.get(h["node_id"]) for h in hits]
    assert all(h["bm25"] is None or h["bm25"] > 0 for h in hits)
    bm25 = {r.node.node_id: r.score for r in words}
    assert [h["bm25"] for h in hits] == [bm25.get(h["node_id"]) for h in hits]
    assert any(h["bm25"] is not None for h in hits)


def test_hybrid_options_choose_the_fusion(index):
    question = "What does the PDP decide?"
    vector = VectorRetriever(index, similarity_top_k=5).retrieve(question)
    words = KeywordRetriever(index, similarity_top_k=5).retrieve(question)
    for options, expected in [
        ({"fusion": "reciprocal_rank"}, reciprocal_rank_fusion([vector, words])),
        ({"fusion": "reciprocal_rank", "rrf_k": 1},
         reciprocal_rank_fusion([vector, words], rrf_k=1)),
        ({"fusion": "dist_based_score"}, fuse([vector, words], method="dist_based_score")),
        ({"alpha": 1.0}, fuse([vector, words], weights=(1.0, 0.0))),
        ({"alpha": 0.0}, fuse([vector, words], weights=(0.0, 1.0))),
    ]:
        trace = Trace()
        hybrid = HybridRetriever(index, similarity_top_k=5, candidates=5, **options)
        results = hybrid.retrieve(question, trace=trace)
        assert [(r.node.node_id, r.score) for r in results] == [
            (r.node.node_id, pytest.approx(r.score)) for r in expected[:5]
        ], options
        assert trace.stages[-1].detail["method"] == options.get("fusion", "relative_score")
    rrf = HybridRetriever(index, fusion="reciprocal_rank", rrf_k=10)
    trace = Trace()
    rrf.retrieve(question, trace=trace)
    assert trace.stages[-1].detail["rrf_k"] == 10 and "alpha" not in trace.stages[-1].detail
    bm25 = HybridRetriever(index, k1=0.0, b=0.0)
    assert (bm25.keyword.k1, bm25.keyword.b) == (0.0, 0.0)


def test_hybrid_respects_filters_and_doc_ids(index):
    shelf = index.as_retriever(mode="hybrid", similarity_top_k=5, filters={"shelf": "other"})
    assert {r.node.ref_doc_id for r in shelf.retrieve("policy PDP kittens")} == {"d1", "d2", "d4"}
    some = HybridRetriever(index, similarity_top_k=5, doc_ids=["d0", "d1"])
    assert {r.node.ref_doc_id for r in some.retrieve("policy PDP kittens")} <= {"d0", "d1"}
    assert {r.node.ref_doc_id for r in some.retrieve("policy PDP kittens")} == {"d0", "d1"}


def test_hybrid_keeps_a_quarter_of_top_k_of_each_sides_best(index):
    assert HybridRetriever(index, similarity_top_k=3).side_heads == 0
    assert HybridRetriever(index, similarity_top_k=4).side_heads == 1
    assert HybridRetriever(index, similarity_top_k=12).side_heads == 3
    assert HybridRetriever(index, similarity_top_k=12, side_heads=0).side_heads == 0
    trace = Trace()
    question = "What does the PDP decide?"
    results = HybridRetriever(index, similarity_top_k=2, side_heads=1).retrieve(
        question, trace=trace)
    assert trace.stages[-1].detail["side_heads"] == 1
    vector = VectorRetriever(index, similarity_top_k=20).retrieve(question)
    words = KeywordRetriever(index, similarity_top_k=20).retrieve(question)
    assert ids(results) == ids(with_side_heads(fuse([vector, words]), [vector, words],
                                               heads=1, top_k=2))
    assert {vector[0].node.node_id, words[0].node.node_id} <= set(ids(results))


def test_hybrid_candidates_default_to_five_per_result_and_at_least_twenty():
    index = VectorStoreIndex()
    assert HybridRetriever(index, similarity_top_k=3).vector.similarity_top_k == 20
    assert HybridRetriever(index, similarity_top_k=4).keyword.similarity_top_k == 20
    assert HybridRetriever(index, similarity_top_k=10).vector.similarity_top_k == 50
    wide = HybridRetriever(index, similarity_top_k=3, candidates=10)
    assert wide.vector.similarity_top_k == wide.keyword.similarity_top_k == 10
    assert HybridRetriever(index, similarity_top_k=8, candidates=2).vector.similarity_top_k == 8


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"candidates": 0}, "candidates"),
        ({"rrf_k": -1}, "rrf_k"),
        ({"alpha": 1.5}, "alpha \\(1.5\\) must be between 0 \\(words only\\) and 1"),
        ({"fusion": "borda"}, "fusion method 'borda'"),
        ({"k1": -1}, "k1"),
        ({"similarity_top_k": 0}, "similarity_top_k"),
        ({"doc_ids": "d0"}, "doc_ids"),
        ({"side_heads": -1}, "side_heads \\(-1\\) must be a whole number"),
        ({"side_heads": 1.5}, "side_heads"),
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


def test_hybrid_is_the_default_everywhere_and_similarity_stays_available(index):
    assert DEFAULT_MODE == "hybrid"
    assert isinstance(index.as_retriever(), HybridRetriever)
    assert isinstance(index.as_query_engine(llm=ExtractiveLLM()).retriever, HybridRetriever)
    chat = index.as_chat_engine(chat_mode="context", llm=ExtractiveLLM())
    assert isinstance(chat.retriever, HybridRetriever)
    trace = Trace()
    index.as_query_engine(llm=ExtractiveLLM()).query("What does the PDP decide?", trace=trace)
    stages = [s.name for s in trace.stages]
    assert stages[:4] == ["embed query", "retrieve", "keyword search", "fuse"]
    by_meaning = index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode="similarity")
    assert type(by_meaning.retriever) is VectorRetriever
    assert type(index.as_retriever(mode="similarity")) is VectorRetriever
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

    by_meaning = index.as_retriever(mode="similarity", similarity_top_k=4).retrieve(question)
    # The small model matches "policy" and "decision" in the risk-assessment guide instead.
    assert not any(defines_pdp(s) for s in by_meaning)
    hybrid = index.as_retriever(mode="hybrid", similarity_top_k=4).retrieve(question)
    assert any(defines_pdp(s) for s in hybrid[:3])
    by_words = index.as_retriever(mode="keyword", similarity_top_k=4).retrieve(question)
    assert defines_pdp(by_words[0])


@pytest.mark.slow
def test_the_one_passage_naming_a_rare_name_reaches_the_reading_pool(real_embedder):
    # Three stories; only "The Engineer's Thumb" names Victor Hatherley. Meaning ranks its
    # "fifty guineas for a night's work" passage far down, BM25 near the top: fused alone
    # it misses the top 12 the packaged model's reading pool retrieves.
    from ragcore.readers import load_file

    stories = ("the-adventure-of-the-engineers-thumb.xhtml", "the-redheaded-league.xhtml",
               "the-adventure-of-the-copper-beeches.xhtml")
    docs = [doc for name in stories for doc in load_file(SHERLOCK / name)]
    index = VectorStoreIndex.from_documents(docs, embedder=real_embedder)
    question = "How much was Victor Hatherley offered for one night's work?"

    def offers(results: list[ScoredNode]) -> bool:
        return any("fifty guineas for a night" in s.node.text for s in results)

    assert not offers(HybridRetriever(index, similarity_top_k=12, side_heads=0).retrieve(question))
    assert offers(index.as_retriever(mode="hybrid", similarity_top_k=12).retrieve(question))
