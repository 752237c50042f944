"""LlamaIndex's documented LLM calls (complete, chat, streaming), a custom QA prompt written
with ``{context_str}``/``{query_str}``, node postprocessors called directly, and refusals."""

import pytest
from support.loopback import Reply, loopback  # noqa: F401  (the fixture)

from ragcore.compat.core import Document, PromptTemplate, Settings, VectorStoreIndex
from ragcore.compat.core.llms import ChatMessage
from ragcore.compat.core.postprocessor import LongContextReorder, SimilarityPostprocessor
from ragcore.compat.core.schema import NodeWithScore, TextNode
from ragcore.compat.llms.ollama import Ollama


def test_llm_complete_chat_and_stream(loopback):
    llm = Ollama(model="llama3.1", base_url=loopback.ollama_url, request_timeout=60.0)
    loopback.queue(Reply(text="Paul Graham is an essayist."), Reply(text="Arr, I be a pirate."),
                   Reply(text="One two three"))

    resp = llm.complete("Who is Paul Graham?")
    print(resp)
    assert str(resp) == resp.text == "Paul Graham is an essayist."

    messages = [
        ChatMessage(role="system", content="You are a pirate with a colorful personality"),
        ChatMessage(role="user", content="What is your name"),
    ]
    resp = llm.chat(messages)
    assert str(resp) == "assistant: Arr, I be a pirate."

    deltas = [r.delta for r in llm.stream_complete("Count")]
    assert "".join(deltas) == "One two three" and len(deltas) == 3
    sent = loopback.requests_to("/api/chat")[1].json["messages"]
    assert [m["role"] for m in sent] == ["system", "user"]
    with pytest.raises(ValueError, match="FunctionCallingAgent"):
        llm.chat(messages, tools=[])


def test_custom_qa_prompt_reaches_the_model(loopback, fake_embedder):
    Settings.embed_model = fake_embedder
    Settings.llm = Ollama(model="llama3.1", base_url=loopback.ollama_url)
    index = VectorStoreIndex.from_documents(
        [Document(text="The capital of France is Paris. Paris has the Louvre.")]
    )
    qa_prompt_tmpl_str = (
        "Context information is below.\n"
        "---------------------\n"
        "{context_str}\n"
        "---------------------\n"
        "Given the context information and not prior knowledge, "
        "answer the query in the style of a Shakespeare play.\n"
        "Query: {query_str}\n"
        "Answer: "
    )
    qa_prompt_tmpl = PromptTemplate(qa_prompt_tmpl_str)
    loopback.queue(Reply(text="Paris, good sir."))

    query_engine = index.as_query_engine(text_qa_template=qa_prompt_tmpl)
    response = query_engine.query("What is the capital of France?")

    assert response.response == "Paris, good sir."
    sent = loopback.requests_to("/api/chat")[0].json["messages"]
    assert [m["role"] for m in sent] == ["user"]
    assert sent[0]["content"].startswith("Context information is below.\n-----")
    assert "The capital of France is Paris." in sent[0]["content"]
    assert sent[0]["content"].endswith("Query: What is the capital of France?\nAnswer: ")


def test_postprocess_nodes_and_long_context_reorder_as_llamaindex():
    scores = [0.7, 0.8, 1.0, 0.2, 0.9, 1.5, 0.1, 1.6, 3.0, 0.4]
    nodes = [NodeWithScore(node=TextNode(text=str(s)), score=s) for s in scores]
    reordered = LongContextReorder().postprocess_nodes(nodes)
    # LlamaIndex's order: weakest to best, even steps to the front, odd steps to the back.
    assert [n.score for n in reordered] == [1.6, 1.0, 0.8, 0.4, 0.1, 0.2, 0.7, 0.9, 1.5, 3.0]
    # LlamaIndex's own test: the four best at the tails, the rest lost in the middle.
    assert {n.score for n in reordered[:3] + reordered[-2:]} >= {3.0, 1.6, 1.5, 1.0}
    assert [n.score for n in LongContextReorder().postprocess_nodes(nodes[:5])] == [
        1.0, 0.8, 0.2, 0.7, 0.9]
    kept = SimilarityPostprocessor(similarity_cutoff=0.85).postprocess_nodes(
        nodes, query_str="anything"
    )
    assert [n.score for n in kept] == [1.0, 0.9, 1.5, 1.6, 3.0]


def test_llamaindex_options_with_another_meaning_are_refused(fake_embedder):
    index = VectorStoreIndex([Document(text="Some text.")], embed_model=fake_embedder)
    with pytest.raises(ValueError, match="output_cls= in ragcore: ragcore answers with text"):
        index.as_query_engine(output_cls=dict)
    with pytest.raises(ValueError, match="trace=Trace"):
        index.as_query_engine(verbose=True)
    with pytest.raises(ValueError, match="retrieval_mode"):
        index.as_query_engine(vector_store_query_mode="svm")
    with pytest.raises(ValueError, match="Settings.callback_manager is not used"):
        Settings.callback_manager = object()
    with pytest.raises(TypeError, match="unexpected keyword"):
        index.as_chat_engine(not_an_option=1)
