"""RouterQueryEngine and SubQuestionQueryEngine over two real documents, each its own index."""

from __future__ import annotations

import pytest

from ragcore import Document, ExtractiveLLM, FakeLLM, QueryEngineTool, VectorStoreIndex
from ragcore.errors import ConfigError
from ragcore.engines.router import (
    EmbeddingSingleSelector, LLMSingleSelector, RouterQueryEngine, parse_selection,
)
from ragcore.engines.sub_question import SubQuestionQueryEngine, parse_sub_questions
from ragcore.trace import Trace


@pytest.fixture
def tools(corpus_dir, fake_embedder):
    def tool(path, name, description, llm):
        doc = Document((corpus_dir / path).read_text(), doc_id=name)
        index = VectorStoreIndex.from_documents([doc], embedder=fake_embedder)
        return QueryEngineTool(index.as_query_engine(llm=llm, similarity_top_k=2), name=name,
                               description=description)

    def make(llm):
        return [
            tool("state_of_the_union/state_of_the_union.txt", "speech",
                 "The 2022 State of the Union speech: Ukraine, NATO, inflation, COVID.", llm),
            tool("python_peps/pep-0020.rst", "zen",
                 "PEP 20, the Zen of Python: aphorisms about Python's design.", llm),
        ]

    return make


def test_parse_selection_takes_the_first_number_in_range():
    assert parse_selection("(2) because it is about Python", 2).index == 1
    assert parse_selection("choice 7, no 1", 2).index == 0
    assert parse_selection("none fits", 2) is None


def test_llm_selector_routes_to_the_engine_it_names(tools):
    llm = FakeLLM(["2 - it is about Python's design"], default="the zen says so")
    router = RouterQueryEngine(tools(llm), selector=LLMSingleSelector(llm=llm))
    trace = Trace()
    response = router.query("What does Python value?", trace=trace)

    assert trace.notes["route"]["engine"] == "zen"
    assert "(1) The 2022 State of the Union speech" in llm.calls[0][-1].content
    assert {n.node.ref_doc_id for n in response.source_nodes} == {"zen"}
    assert response.text == "the zen says so"


def test_embedding_selector_needs_no_llm_and_the_extractive_backend_cannot_choose(
    tools, fake_embedder
):
    router = RouterQueryEngine(tools(ExtractiveLLM()),
                               selector=EmbeddingSingleSelector(embedder=fake_embedder))
    trace = Trace()
    response = router.query("Zen of Python aphorisms design", trace=trace)
    assert trace.notes["route"]["engine"] == "zen" and "Python" in response.text
    with pytest.raises(ConfigError, match="EmbeddingSingleSelector"):
        LLMSingleSelector(llm=ExtractiveLLM())


def test_parse_sub_questions_reads_json_in_fences_and_drops_unknown_tools():
    reply = ('Sure:\n```json\n[{"sub_question": "What does the speech say?", "tool_name": '
             '"speech"}, {"sub_question": "x", "tool_name": "nope"}]\n```')
    assert parse_sub_questions(reply, ["speech", "zen"]) == [
        ("What does the speech say?", "speech")]
    assert parse_sub_questions("no list here", ["speech"]) == []


def test_sub_questions_are_answered_by_their_engines_then_combined(tools):
    plan = ('[{"sub_question": "What is said about errors?", "tool_name": "zen"}, '
            '{"sub_question": "What is said about Ukraine?", "tool_name": "speech"}]')
    llm = FakeLLM([plan], default=lambda messages: messages[-1].content[-60:])
    engine = SubQuestionQueryEngine(tools(llm), llm=llm)
    trace = Trace()
    response = engine.query("Compare the speech and the Zen of Python", trace=trace)
    response.text  # the final answer is synthesized as it is read

    assert [s["tool"] for s in trace.notes["sub_questions"]] == ["zen", "speech"]
    texts = [n.node.text for n in response.source_nodes]
    assert texts[0].startswith("Sub question: What is said about errors?\nResponse: ")
    assert len(response.source_nodes) == 2
    final_prompt = "\n".join(m.content for m in llm.calls[-1])
    assert "Sub question: What is said about Ukraine?" in final_prompt


def test_extractive_backend_asks_every_source_the_question(tools):
    engine = SubQuestionQueryEngine(tools(ExtractiveLLM()), llm=ExtractiveLLM())
    trace = Trace()
    response = engine.query("What do they say about the future?", trace=trace)
    assert [s["tool"] for s in trace.notes["sub_questions"]] == ["speech", "zen"]
    assert "sub_question_plan" in trace.notes and response.text
    with pytest.raises(ConfigError, match="names must differ"):
        SubQuestionQueryEngine(tools(ExtractiveLLM())[:1] * 2, llm=ExtractiveLLM())
