"""LlamaIndex's documented streaming and chat-engine snippets over the starter's index."""

import pytest

from ragcore.compat.core import SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.llms import ChatMessage, MessageRole
from ragcore.compat.core.memory import ChatMemoryBuffer

pytestmark = pytest.mark.slow


@pytest.fixture
def index(in_data_folder):
    documents = SimpleDirectoryReader("data").load_data()
    return VectorStoreIndex.from_documents(documents)


def test_streaming_query(index, capsys):
    query_engine = index.as_query_engine(streaming=True, similarity_top_k=1)
    streaming_response = query_engine.query("What does the Zen of Python say?")
    streaming_response.print_response_stream()

    printed = capsys.readouterr().out
    assert "is better than" in printed
    # One stream, several views: the chunks, the whole text, and str() agree.
    assert "".join(streaming_response.response_gen) == printed == streaming_response.response
    assert len(streaming_response.source_nodes) == 1


def test_chat_engine_keeps_the_conversation(index):
    chat_engine = index.as_chat_engine()
    response = chat_engine.chat("Why was the NATO Alliance created?")
    print(response)
    assert "to secure peace and stability in Europe" in str(response)
    response = chat_engine.chat("Oh interesting, tell me more.")
    print(response)
    assert [m.role for m in chat_engine.chat_history] == ["user", "assistant"] * 2
    chat_engine.reset()
    assert chat_engine.chat_history == []

    streaming_response = chat_engine.stream_chat("What is the Zen of Python?")
    tokens = [token for token in streaming_response.response_gen]
    assert "".join(tokens) == streaming_response.response
    assert streaming_response.source_nodes
    assert chat_engine.chat_history[-1].content == streaming_response.response


def test_chat_engine_with_a_memory_and_history(index):
    memory = ChatMemoryBuffer.from_defaults(token_limit=1500)
    chat_engine = index.as_chat_engine(
        chat_mode="condense_plus_context", memory=memory,
        system_prompt="You are a chatbot, able to answer questions about a speech.",
    )
    history = [ChatMessage(role=MessageRole.USER, content="Let us talk about NATO."),
               ChatMessage(role=MessageRole.ASSISTANT, content="Sure.")]
    response = chat_engine.chat("Why was it created?", chat_history=history)
    assert "NATO" in response.response
    assert chat_engine.memory is memory and len(memory.get_all()) == 4


def test_retriever_with_llamaindex_filters(index):
    from ragcore.compat.core.vector_stores import ExactMatchFilter, MetadataFilters

    filters = MetadataFilters(filters=[ExactMatchFilter(key="file_name", value="pep-0020.rst")])
    retriever = index.as_retriever(similarity_top_k=3, filters=filters)
    nodes = retriever.retrieve("Ukraine")
    assert nodes and {n.metadata["file_name"] for n in nodes} == {"pep-0020.rst"}

    filters = MetadataFilters.from_dicts(
        [{"key": "file_name", "value": "union", "operator": "text_match"}]
    )
    nodes = index.as_query_engine(filters=filters).query("What does it say?").source_nodes
    assert nodes and {n.metadata["file_name"] for n in nodes} == {"state_of_the_union.txt"}


def test_react_agent_over_a_query_engine_tool(index, capsys):
    from ragcore.compat.core.agent import ReActAgent
    from ragcore.compat.core.tools import QueryEngineTool

    query_engine_tool = QueryEngineTool.from_defaults(
        query_engine=index.as_query_engine(),
        name="speech",
        description="Answers questions about the 2022 State of the Union speech.",
    )
    agent = ReActAgent.from_tools([query_engine_tool], verbose=True)
    response = agent.chat("Why was the NATO Alliance created?")

    assert "to secure peace and stability in Europe" in response.response
    assert [o.tool_name for o in response.tool_outputs] == ["speech"]
    assert "Action: speech" in capsys.readouterr().out
