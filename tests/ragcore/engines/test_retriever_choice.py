"""The advanced retrievers built over an ordinary index (``ragcore.engines.by_name``), on the
real speech and PEPs: chunk-group auto-merging, query-time sentence windows, rerankers,
router and sub-questions; offline availability; the traces; the comparison; QueryBundle."""

from __future__ import annotations

import pytest

from ragcore import Document, ExtractiveLLM, FakeLLM, VectorStoreIndex
from ragcore.retrieval.auto_merging import ChunkGroups
from ragcore.compat.core.schema import QueryBundle
from ragcore.errors import ConfigError
from ragcore.engines.by_name import (
    CHOICES, build_engine, build_retriever, iter_compare_retrievers, unavailable_reason,
)
from ragcore.retrieval.sentence_window import stitch
from ragcore.trace import Trace
from ragcore.types import Node

QUESTION = "What did the president say about Ketanji Brown Jackson?"


@pytest.fixture(scope="module")
def documents(corpus_dir):
    return [Document((corpus_dir / path).read_text(encoding="utf-8"), doc_id=path,
                     metadata={"file_name": path.split("/")[-1]})
            for path in ("state_of_the_union/state_of_the_union.txt",
                         "python_peps/pep-0020.rst", "python_peps/pep-0008.rst")]


@pytest.fixture(scope="module")
def index(documents):
    from ragcore.embeddings.fake import FakeEmbedder

    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


def test_offline_the_choices_needing_a_writing_model_say_why_and_are_refused(index):
    offline = ExtractiveLLM()
    blocked = {n for n in CHOICES if unavailable_reason(n, llm=offline)}
    assert blocked == {"query_fusion", "hyde", "llm_rerank", "cross_encoder"}
    assert "language model" in unavailable_reason("hyde", llm=offline)
    assert unavailable_reason("cross_encoder", llm=offline, cross_encoder="/models/ce") is None
    assert not {n for n in CHOICES if unavailable_reason(n, llm=FakeLLM(), cross_encoder="x")}
    with pytest.raises(ConfigError, match="needs a language model"):
        build_retriever("query_fusion", index, llm=offline)
    with pytest.raises(ConfigError, match="unknown: choose from standard"):
        build_retriever("colbert", index, llm=offline)


def test_stitch_reads_overlaps_once_and_keeps_offsets_across_gaps(documents):
    text = documents[0].text
    a = Node(text[0:50], start_char=0, end_char=50)
    b = Node(text[40:90], start_char=40, end_char=90)
    c = Node(text[95:120], start_char=95, end_char=120)
    assert stitch([a, b]) == text[0:90]
    joined = stitch([a, b, c])
    assert len(joined) == 120 and joined[95:] == text[95:120]


def test_auto_merging_reads_neighbouring_chunks_as_one_passage(index, documents):
    retriever = build_retriever("auto_merging", index, llm=ExtractiveLLM(), top_k=4,
                                mode="keyword")
    trace = Trace()
    found = retriever.retrieve("Ukraine Putin Russia sanctions NATO", trace=trace)
    merge = next(s for s in trace.stages if s.name == "auto-merge")
    assert merge.detail["parents"] >= 1 and merge.detail["merged_children"] >= 2
    parents = [n.node for n in found if n.node.child_ids]
    assert parents and len(found) <= 4
    text = documents[0].text
    for parent in parents:  # the document's text over its chunks (the whitespace the splitter
        # dropped between two chunks comes back as spaces), offsets exact
        original = text[parent.start_char:parent.end_char]
        assert len(parent.text) == len(original) and parent.text.split() == original.split()
        assert len(parent.child_ids) == 4
    with pytest.raises(ConfigError, match="at least 2 chunks"):
        ChunkGroups(index, group_size=1)


def test_sentence_window_finds_sentences_and_shows_their_window(index, documents):
    retriever = build_retriever("sentence_window", index, llm=ExtractiveLLM(), top_k=3,
                                mode="keyword")
    trace = Trace()
    found = retriever.retrieve(QueryBundle("Ketanji Brown Jackson"), trace=trace)
    assert len(found) == 3
    text = documents[0].text
    for scored in found:
        node = scored.node
        sentence = node.metadata["original_text"]
        assert sentence in node.text and len(node.text) > len(sentence)  # the window shown
        assert text[node.start_char:node.end_char] == node.text or node.start_char is None
    assert any("Ketanji" in n.node.metadata["original_text"] for n in found)
    names = [s.name for s in trace.stages]
    assert names[-2:] == ["sentence windows", "postprocess: MetadataReplacementPostProcessor"]
    assert trace.stages[-1].detail["texts replaced"] == 3


def test_llm_rerank_records_its_calls_and_scores_in_the_trace(index):
    llm = FakeLLM(["Doc: 4, Relevance: 9\nDoc: 2, Relevance: 6"])
    retriever = build_retriever("llm_rerank", index, llm=llm, top_k=4, mode="hybrid")
    trace = Trace()
    found = retriever.retrieve("Ukraine", trace=trace)
    assert [n.score for n in found] == [9.0, 6.0]
    assert [c.purpose for c in trace.llm_calls] == ["rerank 1-12"]
    assert "Document 12:" in trace.llm_calls[0].messages[-1].content
    assert trace.notes["rerank"][0]["passage"] == 4 and trace.notes["rerank"][0]["relevance"] == 9


def test_router_offline_picks_a_document_by_meaning_and_answers_from_it(index):
    engine = build_engine("router", index, llm=ExtractiveLLM(), top_k=3, mode="keyword")
    trace = Trace()
    response = engine.query("Beautiful is better than ugly. Explicit is better than implicit.",
                            trace=trace)
    assert trace.notes["route"]["engine"] in trace.notes["sources"]
    assert "most similar description" in trace.notes["route"]["reason"]
    chosen = {n.node.ref_doc_id for n in response.source_nodes}
    assert len(chosen) == 1  # the search was limited to the chosen document


def test_sub_questions_ask_each_document_and_combine(index):
    llm = FakeLLM(['[{"sub_question": "What does PEP 20 say?", "tool_name": "source_1"}, '
                   '{"sub_question": "What does PEP 8 say?", "tool_name": "source_2"}]'],
                  default="an answer")
    engine = build_engine("sub_question", index, llm=llm, top_k=2, mode="keyword")
    trace = Trace()
    response = engine.query("Compare the Zen of Python and the style guide PEP", trace=trace)
    assert [s["sub_question"] for s in trace.notes["sub_questions"]] == [
        "What does PEP 20 say?", "What does PEP 8 say?"]
    sources = trace.notes["sources"]
    assert "pep-0020.rst" in sources["source_1"] and "pep-0008.rst" in sources["source_2"]
    assert {n.node.ref_doc_id for n in response.source_nodes} == {
        "python_peps/pep-0020.rst", "python_peps/pep-0008.rst"}  # the sub-answers' passages


def test_compare_retrievers_runs_each_and_reports_a_failure_without_stopping(index):
    engines = {name: build_engine(name, index, llm=ExtractiveLLM(), top_k=3, mode="keyword")
               for name in ("standard", "auto_merging", "sentence_window")}

    class Broken:
        def query(self, question, *, trace=None):
            raise ConfigError("broken on purpose")

    engines["router"] = Broken()
    results = list(iter_compare_retrievers("Ukraine and Putin", engines))
    assert [r.name for r in results] == ["standard", "auto_merging", "sentence_window", "router"]
    assert all(r.answer and r.source_nodes for r in results[:3])
    assert results[3].error == "ConfigError: broken on purpose"


def test_query_bundle_is_accepted_by_engines_and_retrievers(index):
    engine = index.as_query_engine(llm=ExtractiveLLM(), retrieval_mode="keyword")
    response = engine.query(QueryBundle("Ukraine"))
    assert response.text and response.source_nodes
    assert index.as_retriever(mode="hybrid").retrieve(QueryBundle("Ukraine"))
    with pytest.raises(ConfigError, match="empty"):
        engine.query(QueryBundle("  "))


@pytest.mark.slow
def test_with_the_real_model_the_sentence_found_by_meaning_comes_with_its_window(
        documents, real_embedder):
    index = VectorStoreIndex.from_documents(documents[:1], embedder=real_embedder)
    question = "Who did the president nominate to serve on the Supreme Court?"
    llm = ExtractiveLLM()
    windows = build_retriever("sentence_window", index, llm=llm, top_k=2, mode="similarity")
    best = windows.retrieve(question)[0].node
    assert "Ketanji Brown Jackson" in best.text
    assert len(best.text) > 2 * len(best.metadata["original_text"])
    merged = build_retriever("auto_merging", index, llm=llm, top_k=4, mode="similarity")
    found = merged.retrieve(question)
    assert any("Ketanji Brown Jackson" in n.node.text for n in found)
    answer = build_engine("sentence_window", index, llm=llm, top_k=2,
                          mode="similarity").query(question)
    assert "Ketanji" in answer.text
