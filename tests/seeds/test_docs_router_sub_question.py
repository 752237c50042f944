"""LlamaIndex's documented router and sub-question snippets over two real documents."""

import pytest

from ragcore import FakeLLM
from ragcore.compat.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.query_engine import RouterQueryEngine, SubQuestionQueryEngine
from ragcore.compat.core.selectors import EmbeddingSingleSelector, LLMSingleSelector
from ragcore.compat.core.tools import QueryEngineTool
from ragcore.trace import Trace


@pytest.fixture
def query_engine_tools(in_data_folder, fake_embedder):
    Settings.embed_model = fake_embedder
    speech = VectorStoreIndex.from_documents(
        SimpleDirectoryReader(input_files=["data/state_of_the_union.txt"]).load_data())
    zen = VectorStoreIndex.from_documents(
        SimpleDirectoryReader(input_files=["data/pep-0020.rst"]).load_data())
    return [
        QueryEngineTool.from_defaults(query_engine=speech.as_query_engine(), name="speech",
                                      description="The 2022 State of the Union speech"),
        QueryEngineTool.from_defaults(query_engine=zen.as_query_engine(), name="zen",
                                      description="PEP 20, the Zen of Python"),
    ]


def test_router_query_engine_with_an_llm_selector(query_engine_tools):
    Settings.llm = FakeLLM(["Choice 1: the question is about the speech."], default="answer")
    query_engine = RouterQueryEngine(
        selector=LLMSingleSelector.from_defaults(),
        query_engine_tools=query_engine_tools,
    )
    trace = Trace()
    response = query_engine.query("What was said about Ukraine?", trace=trace)
    assert trace.notes["route"]["engine"] == "speech"
    assert response.source_nodes[0].node.metadata["file_name"] == "state_of_the_union.txt"


def test_router_with_the_embedding_selector_works_offline(query_engine_tools):
    query_engine = RouterQueryEngine(selector=EmbeddingSingleSelector.from_defaults(),
                                     query_engine_tools=query_engine_tools)
    trace = Trace()
    query_engine.query("Zen of Python", trace=trace)
    assert trace.notes["route"]["engine"] == "zen"


def test_sub_question_query_engine(query_engine_tools):
    query_engine = SubQuestionQueryEngine.from_defaults(
        query_engine_tools=query_engine_tools,
        use_async=True,
    )
    response = query_engine.query("Compare what the speech and the Zen of Python value")
    assert len(response.metadata["sub_questions"]) == 2  # offline: each source asked the question
    assert response.response
