"""What a reader with a budget (the packaged model) reads: the best sentences of top-k passages
chosen among a wider pool retrieved, and a sentence showing the form of what is asked ranked
higher ("thirty" for "how old")."""

from __future__ import annotations

from ragcore import Document, VectorStoreIndex
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.engines.from_index import READING_POOL, chat_engine_from_index, reading_pool
from ragcore.llms.fake import FakeLLM
from ragcore.retrieval.optimizer import (REACHED_PASSAGES, REACHING_RANK,
                                        SentenceEmbeddingOptimizer)
from ragcore.tokens import count_tokens
from ragcore.types import Node, ScoredNode


class FewTokensLLM(FakeLLM):
    reading_tokens = 40


def passage(text: str, name: str) -> ScoredNode:
    return ScoredNode(Node(text=text, node_id=name), 0.5)


def test_a_sentence_showing_the_asked_form_is_read_before_one_that_does_not():
    dark = "Julia died at night in the old house at Stoke Moran."
    age = "Julia died at thirty in the old manor at Stoke Moran."
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=count_tokens(age))
    for text in (f"{dark} {age}", f"{age} {dark}"):  # in either order
        [kept] = optimizer.postprocess([passage(text, "n0")],
                                       "How old was Julia when she died?")
        assert kept.node.text == age
    # a question asking for no form ranks the two by their words alone: the first kept
    [kept] = optimizer.postprocess([passage(f"{dark} {age}", "n0")],
                                   "Where did Julia die at Stoke Moran?")
    assert kept.node.text == dark


def test_the_budget_reads_from_at_most_max_passages_passages():
    nodes = [passage("Tickets are sold at the gate. Pelicans nest in the tower.", "a"),
             passage("Nothing here. Pelicans nest in the east tower every spring.", "b"),
             passage("The moat was filled. Pelicans nest in spring.", "c")]
    question = "Where do pelicans nest every spring?"
    wide = SentenceEmbeddingOptimizer(None, token_budget=40)
    assert len(wide.postprocess(nodes, question)) == 3
    one = SentenceEmbeddingOptimizer(None, token_budget=40, max_passages=1)
    [kept] = one.postprocess(nodes, question)  # the passage of the best sentence
    assert kept.node.node_id == "b"


def fourteen_passages() -> VectorStoreIndex:
    docs = [Document(text=f"Tower {i} stands on hill {i}. Pelicans nest in tower {i}.",
                     doc_id=f"d{i}") for i in range(14)]
    return VectorStoreIndex.from_documents(docs, embedder=FakeEmbedder(dim=256))


def test_a_budgeted_reader_picks_among_a_wider_pool_and_reads_top_k_passages():
    assert reading_pool(FewTokensLLM(), 2) == READING_POOL
    assert reading_pool(FewTokensLLM(), 20) == 20
    assert reading_pool(FakeLLM(), 2) == 2
    index = fourteen_passages()
    engine = index.as_query_engine(llm=FewTokensLLM(), similarity_top_k=2,
                                   retrieval_mode="similarity")
    assert engine.retriever.similarity_top_k == READING_POOL
    response = engine.query("Where do pelicans nest?")
    assert 1 <= len({s.node.ref_doc_id for s in response.source_nodes}) <= 2
    whole = index.as_query_engine(llm=FakeLLM(), similarity_top_k=2,
                                  retrieval_mode="similarity")
    assert whole.retriever.similarity_top_k == 2


def test_chat_engines_read_the_pool_too_unless_given_a_retriever():
    index = fourteen_passages()
    engine = index.as_chat_engine(llm=FewTokensLLM(), chat_mode="context", similarity_top_k=2,
                                  retrieval_mode="similarity")
    assert engine.retriever.similarity_top_k == READING_POOL
    optimizer = next(p for p in engine.node_postprocessors
                     if isinstance(p, SentenceEmbeddingOptimizer))
    assert optimizer.max_passages == 2
    # a caller's own retriever is read as it retrieves: no pool, no limit
    own = index.as_retriever(similarity_top_k=3, mode="similarity")
    given = chat_engine_from_index(index, llm=FewTokensLLM(), chat_mode="context",
                                   similarity_top_k=2, retrieval_mode="similarity", retriever=own)
    assert given.retriever is own and own.similarity_top_k == 3
    assert next(p for p in given.node_postprocessors
                if isinstance(p, SentenceEmbeddingOptimizer)).max_passages is None


def test_a_list_is_read_from_the_passages_ranked_first_a_fact_from_the_whole_pool():
    nodes = [passage("The castle has three towers: the east tower, the west tower and the keep.",
                     "first"),
             passage("Pelicans nest in the east tower of the castle every spring.", "pooled"),
             passage("Herons nest in the west tower of the castle.", "herons"),
             passage("Swallows nest in the keep of the castle.", "swallows"),
             passage("The castle moat was filled in 1820.", "moat")]
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=20, by_kind=True, max_passages=1)
    [fact] = optimizer.postprocess(nodes, "Where do pelicans nest in the castle?")
    assert fact.node.node_id == "pooled"
    # a list: its top-k passages (here 1) and the REACHED_PASSAGES (2) its best sentences reach
    listed = optimizer.postprocess(nodes, "List the towers where birds nest in the castle.")
    assert REACHED_PASSAGES == 2
    assert [n.node.node_id for n in listed] == ["first", "pooled", "herons"]


def test_a_list_reaches_past_its_top_k_only_for_a_sentence_ranked_among_the_first():
    nodes = [passage("Pelicans nest in the east tower. Pelicans nest in the west tower. "
                     "Pelicans nest in the keep.", "first"),
             passage("Ravens nest by the moat.", "far")]
    optimizer = SentenceEmbeddingOptimizer(None, token_budget=40, by_kind=True, max_passages=1)
    listed = optimizer.postprocess(nodes, "List the towers where pelicans nest in the castle.")
    assert REACHING_RANK == 3  # the three pelican sentences rank first: no passage is reached
    assert [n.node.node_id for n in listed] == ["first"]
