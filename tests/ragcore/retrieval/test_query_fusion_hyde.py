"""QueryFusionRetriever and HyDE on the real speech: prompts, parsing, fusion, traces, and
the extractive backend's honest fallback."""

from __future__ import annotations

import numpy as np
import pytest

from ragcore import Document, ExtractiveLLM, FakeLLM, VectorStoreIndex
from ragcore.errors import ConfigError
from ragcore.retrieval.hyde import HyDERetriever
from ragcore.retrieval.query_fusion import QueryFusionRetriever, parse_queries, simple_fusion
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode


@pytest.fixture
def index(corpus_dir, fake_embedder):
    text = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    return VectorStoreIndex.from_documents([Document(text, doc_id="sotu")], embedder=fake_embedder)


def test_parse_queries_strips_list_marks_and_repeats():
    reply = '1. Ukraine invasion\n- "Putin war"\n\nQuery 3: sanctions\nukraine INVASION\nWhat?'
    assert parse_queries(reply, "What?", 5) == ["Ukraine invasion", "Putin war", "sanctions"]
    assert parse_queries(reply, "x", 2) == ["Ukraine invasion", "Putin war"]


def test_simple_fusion_keeps_each_node_once_with_its_best_score():
    a, b = Node("a", node_id="a"), Node("b", node_id="b")
    fused = simple_fusion([[ScoredNode(a, 0.2), ScoredNode(b, 0.5)], [ScoredNode(a, 0.9)]])
    assert [(n.node.node_id, n.score) for n in fused] == [("a", 0.9), ("b", 0.5)]


def test_query_fusion_searches_every_generated_query_and_fuses(index):
    llm = FakeLLM(["1. Russian invasion of Ukraine\n2. sanctions against Russia\n3. NATO allies"])
    retriever = QueryFusionRetriever(
        [index.as_retriever(similarity_top_k=5, mode="similarity"),
         index.as_retriever(similarity_top_k=5, mode="keyword")],
        llm=llm, similarity_top_k=4, num_queries=4,
    )
    trace = Trace()
    nodes = retriever.retrieve("What did the president say about Putin?", trace=trace)

    assert trace.notes["fusion_queries"] == [
        "What did the president say about Putin?", "Russian invasion of Ukraine",
        "sanctions against Russia", "NATO allies"]
    assert "Write 3 different search queries" in llm.calls[0][-1].content
    assert len(nodes) == 4 and len({n.node.node_id for n in nodes}) == 4
    assert [s.name for s in trace.stages].count("retrieve") == 4  # 4 queries x 1 vector side
    assert trace.stages[-1].name == "fuse queries"
    scores = [n.score for n in nodes]
    assert scores == sorted(scores, reverse=True)


def test_query_fusion_with_the_extractive_backend_searches_the_question_only(index):
    retriever = QueryFusionRetriever([index.as_retriever(mode="similarity")], llm=ExtractiveLLM())
    trace = Trace()
    assert retriever.retrieve("Ukraine", trace=trace)
    assert trace.notes["fusion_queries"] == ["Ukraine"] and "query_fusion" in trace.notes
    assert trace.llm_calls == []
    with pytest.raises(ConfigError, match="num_queries"):
        QueryFusionRetriever([index.as_retriever()], llm=ExtractiveLLM(), num_queries=0)
    with pytest.raises(ConfigError, match="mode"):
        QueryFusionRetriever([index.as_retriever()], llm=ExtractiveLLM(), mode="best")


def test_hyde_searches_with_the_mean_of_passage_and_question(index):
    passage = "Russia invaded Ukraine; the free world imposed sanctions on Putin's Russia."
    llm = FakeLLM([passage])
    base = index.as_retriever(similarity_top_k=3, mode="similarity")
    trace = Trace()
    nodes = HyDERetriever(base, llm=llm).retrieve("What happened with Putin?", trace=trace)

    embedder = index.embedder
    vectors = embedder.embed_batch([passage, "What happened with Putin?"])
    mean = vectors.mean(axis=0)
    expected = base.retrieve_by_vector(mean / np.linalg.norm(mean))
    assert [n.node.node_id for n in nodes] == [n.node.node_id for n in expected]
    assert trace.notes["hyde_passage"] == passage
    assert llm.calls[0][-1].content == "Question: What happened with Putin?\nPassage:"
    assert passage not in "".join(n.node.text for n in nodes)  # the made-up text is no source


def test_hyde_without_a_writing_model_is_plain_vector_search(index):
    base = index.as_retriever(similarity_top_k=3, mode="similarity")
    trace = Trace()
    nodes = HyDERetriever(base, llm=ExtractiveLLM()).retrieve("Ukraine", trace=trace)
    assert [n.node.node_id for n in nodes] == [n.node.node_id for n in base.retrieve("Ukraine")]
    assert "hyde" in trace.notes
    with pytest.raises(ConfigError, match="vector retriever"):
        HyDERetriever(index.as_retriever(mode="keyword"), llm=ExtractiveLLM())
