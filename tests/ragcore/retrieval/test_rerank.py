"""LLMRerank: the prompt, the reply parser, batching, and the extractive fallback."""

from __future__ import annotations

import pytest

from ragcore import ExtractiveLLM, FakeLLM
from ragcore.errors import ConfigError
from ragcore.retrieval.rerank import LLMRerank, parse_relevance, rerank_messages
from ragcore.types import Node, ScoredNode


def nodes(*texts):
    return [ScoredNode(Node(t, node_id=t), 0.5) for t in texts]


def test_parse_relevance_reads_tolerantly():
    reply = ("Doc: 2, Relevance: 8\nDocument 1 relevance 3\nDoc: 9, Relevance: 10\n"
             "Doc: 2, Relevance: 1")
    assert parse_relevance(reply, 3) == [(1, 8.0), (0, 3.0)]


def test_rerank_orders_by_the_models_relevance_in_batches():
    llm = FakeLLM(["Doc: 2, Relevance: 9\nDoc: 1, Relevance: 4", "Doc: 1, Relevance: 7"])
    ranked = LLMRerank(llm=llm, choice_batch_size=2, top_n=3).postprocess_nodes(
        nodes("apples", "Paris is in France", "Berlin"), query_str="Where is Paris?")
    assert [(n.node.text, n.score) for n in ranked] == [
        ("Paris is in France", 9.0), ("Berlin", 7.0), ("apples", 4.0)]
    first_prompt = llm.calls[0][-1].content
    assert "Document 1:\napples" in first_prompt and first_prompt.endswith(
        "Question: Where is Paris?\nAnswer:")
    assert "Document 1:\nBerlin" in llm.calls[1][-1].content  # batches are numbered from 1


def test_extractive_backend_keeps_the_order():
    given = nodes("a", "b", "c")
    assert LLMRerank(llm=ExtractiveLLM(), top_n=2).postprocess(given, "q") == given[:2]
    with pytest.raises(ConfigError, match="top_n"):
        LLMRerank(llm=ExtractiveLLM(), top_n=0)


def test_rerank_messages_show_each_passage_with_its_llm_metadata():
    node = Node("text", node_id="n", metadata={"file_name": "a.txt"})
    prompt = rerank_messages("q", [ScoredNode(node, 1.0)])[-1].content
    assert "file_name: a.txt" in prompt and "text" in prompt


def test_the_reader_puts_the_passage_stating_the_answer_first():
    from ragcore.grounding.stating import reader_available
    from ragcore.retrieval.rerank import ReaderRerank

    if not reader_available():
        pytest.skip("the reader's weights")
    texts = ["Chubby is a lock service used inside Google.",
             "A client holds a session with the Chubby master.",
             "The client waits a further interval called the grace period, 45s by default."]
    nodes = [ScoredNode(Node(text=t, node_id=f"n{i}"), 0.9 - i / 10) for i, t in enumerate(texts)]
    kept = ReaderRerank(top_n=2).postprocess(
        nodes, "How long is the grace period of a Chubby client by default?")
    assert [n.node.node_id for n in kept][0] == "n2" and len(kept) == 2
    assert kept[0].score > kept[1].score
