"""The Python API's answer is checked as the app's is: ``index.as_query_engine().query(q)``
returns a Response carrying its grounding verdict and the text a person would be shown, and an
agent's search tool reads that text, not the model's words unchecked."""

from __future__ import annotations

import pytest

from ragcore import Document
from ragcore.index import VectorStoreIndex
from ragcore.llms.fake import FakeLLM
from ragcore.tools import QueryEngineTool

PASSAGES = [
    "The harbour bridge was opened to traffic in 1932 after eight years of building.",
    "Its arch spans 503 metres between the two pylons on either shore.",
]


@pytest.fixture
def index(fake_embedder):
    return VectorStoreIndex.from_documents([Document(t) for t in PASSAGES],
                                           embedder=fake_embedder)


def test_a_supported_short_answer_is_shown_with_the_sentence_stating_it(index):
    engine = index.as_query_engine(llm=FakeLLM(replies=["**1932**."]))
    response = engine.query("When was the harbour bridge opened?")
    assert response.text == "**1932**."  # the model's own words stay as written
    assert response.verdict is not None and response.verdict.label == "supported"
    assert "opened to traffic in 1932" in response.shown and "[1]" in response.shown


def test_a_guess_the_model_disowned_is_shown_as_a_refusal(index):
    engine = index.as_query_engine(llm=FakeLLM(replies=["**1930**. Not found in the documents."]))
    response = engine.query("When was the harbour bridge painted?")
    assert response.shown.startswith("The documents don't say")
    assert "1930" not in response.shown.split(".")[0]


def test_the_search_tool_gives_the_agent_the_checked_answer(index):
    engine = index.as_query_engine(llm=FakeLLM(replies=["**1930**. Not found in the documents."]))
    output = QueryEngineTool(engine).call(input="When was the harbour bridge painted?")
    assert output.content == output.raw_output.shown
    assert output.content.startswith("The documents don't say")


def test_an_engine_without_a_check_shows_the_model_text(index):
    from ragcore.query import QueryEngine
    from ragcore.synthesis import Synthesizer

    engine = QueryEngine(index.as_retriever(), Synthesizer(FakeLLM(replies=["Anything."])))
    response = engine.query("When was the harbour bridge opened?")
    assert response.verdict is None and response.shown == "Anything."
