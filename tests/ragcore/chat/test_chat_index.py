"""Chat over a real VectorStoreIndex with the offline extractive backend: every mode through
``index.as_chat_engine``, the follow-up condensed, and (slow) an end-to-end ReAct chat with the
real embedding model that calls the index tool and answers with sources."""

from __future__ import annotations

import pytest
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.agent import FunctionCallingAgent
from ragcore.chat import ChatMode, CondensePlusContextChatEngine
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.llms.extractive.backend import ExtractiveLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.memory import ChatMemory
from ragcore.trace import Trace
from ragcore.types import Document

DOCS = [
    ("report.txt", "The annual report was written by Dana Reyes. It was published in 2021."),
    ("pages.txt", "The annual report has 48 pages and four appendices. Its cover is blue."),
    ("cats.txt", "Cats sleep for most of the day. They like warm places."),
]
RETRIEVING = [m for m in ChatMode if m is not ChatMode.SIMPLE]


@pytest.fixture(scope="module")
def small_index() -> VectorStoreIndex:
    documents = [Document(text, doc_id=name, metadata={"file_name": name}) for name, text in DOCS]
    return VectorStoreIndex.from_documents(documents, embedder=FakeEmbedder())


@pytest.mark.parametrize("mode", RETRIEVING, ids=lambda m: m.value)
def test_every_retrieving_mode_answers_a_follow_up_from_the_documents(small_index, mode):
    llm = ExtractiveLLM()
    engine = small_index.as_chat_engine(chat_mode=mode, llm=llm, similarity_top_k=3)
    memory = ChatMemory.from_llm(llm)
    first = engine.chat("Who wrote the annual report?", memory)
    assert "Dana Reyes" in first.text
    trace = Trace()
    second = engine.chat("and what about its page count?", memory, trace=trace)
    assert "48 pages" in "".join(second)
    assert "report.txt" in {s.file for s in first.sources()}
    assert "pages.txt" in {s.file for s in second.sources()}
    assert [m.role for m in memory.messages] == ["user", "assistant"] * 2
    assert trace.llm_calls, "the trace records the turn's LLM calls"
    if mode in (ChatMode.CONDENSE_QUESTION, ChatMode.CONDENSE_PLUS_CONTEXT, ChatMode.BEST):
        assert "annual report" in trace.notes["condensed_question"]


def test_best_with_the_extractive_backend_is_condense_plus_context(small_index):
    engine = small_index.as_chat_engine(llm=ExtractiveLLM())
    assert isinstance(engine, CondensePlusContextChatEngine)
    trace = Trace()
    _ = engine.chat("Who wrote the annual report?", ChatMemory(), trace=trace).text
    assert trace.notes["chat_mode"] == "condense_plus_context"


def test_one_engine_serves_two_conversations(small_index):
    engine = small_index.as_chat_engine(chat_mode="condense_plus_context", llm=ExtractiveLLM())
    alice, bob = ChatMemory(), ChatMemory()
    _ = engine.chat("Who wrote the annual report?", alice).text
    _ = engine.chat("Do cats sleep?", bob).text
    assert alice.messages[0].content == "Who wrote the annual report?"
    assert bob.messages[0].content == "Do cats sleep?" and len(bob) == 2


@pytest.mark.slow
def test_react_chat_end_to_end_with_the_real_model(corpus_dir, real_embedder):
    peps = corpus_dir / "python_peps"
    documents = [
        Document(path.read_text(encoding="utf-8"), doc_id=path.name,
                 metadata={"file_name": path.name})
        for path in (peps / f"pep-{n:04d}.rst" for n in (2, 10, 13, 20))
    ]
    index = VectorStoreIndex.from_documents(documents, embedder=real_embedder)
    llm = ExtractiveLLM()
    agent = index.as_chat_engine(chat_mode="react", llm=llm)
    trace = Trace()
    response = agent.chat("What should errors never do?", ChatMemory.from_llm(llm), trace=trace)
    chunks = list(response)
    text = "".join(chunks)
    assert "pass silently" in text
    assert not any(marker in text for marker in ("Thought:", "Action:", "Observation:"))
    assert trace.notes["reasoning"][0]["action"] == "search_documents"
    assert "tool: search_documents" in [s.name for s in trace.stages]
    assert "retrieve" in [s.name for s in trace.stages]  # the tool's query ran in this trace
    assert response.sources()[0].file == "pep-0020.rst"


@pytest.mark.parametrize("response_mode", ["refine", "tree_summarize", "accumulate"])
def test_condense_question_answers_in_any_response_mode(small_index, response_mode):
    engine = small_index.as_chat_engine(
        chat_mode="condense_question", llm=ExtractiveLLM(), response_mode=response_mode
    )
    trace = Trace()
    response = engine.chat("How many pages does the annual report have?", ChatMemory(),
                           trace=trace)
    assert "48 pages" in response.text
    packed = [s.detail for s in trace.stages if s.name == "pack context"]
    assert packed and packed[0]["response_mode"] == response_mode


def test_best_with_an_openai_server_is_a_function_calling_agent_over_the_index(
    small_index, loopback  # noqa: F811
):
    loopback.queue(
        Reply(tool_calls=[("search_documents", {"input": "How long is the annual report?"})]),
        Reply(text="The annual report has 48 pages."),  # the query engine's answer (streamed)
        Reply(text="It has 48 pages."),  # the agent's final answer
    )
    llm = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url)
    engine = small_index.as_chat_engine(llm=llm, similarity_top_k=3)
    assert isinstance(engine, FunctionCallingAgent)
    memory = ChatMemory.from_llm(llm)
    response = engine.chat("How long is the annual report?", memory)
    assert response.text == "It has 48 pages."
    assert "pages.txt" in {s.file for s in response.sources()}
    final_request = loopback.requests_to("/v1/chat/completions")[-1].json
    tool_result = final_request["messages"][-1]
    assert tool_result["role"] == "tool" and "48 pages" in tool_result["content"]
    assert [m.content for m in memory.messages] == ["How long is the annual report?",
                                                    "It has 48 pages."]
