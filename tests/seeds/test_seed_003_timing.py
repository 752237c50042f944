"""Seeds 003/004, "Llama index Usage Example": the timing script, with Ollama at a loopback
server (``OLLAMA_HOST``) and the packaged embedding model."""

import time

import pytest
from support.loopback import LoopbackServer, Reply

from ragcore.compat.core import VectorStoreIndex,SimpleDirectoryReader,Settings
from ragcore.compat.embeddings.huggingface import HuggingFaceEmbedding
from ragcore.compat.llms.ollama import Ollama

pytestmark = pytest.mark.slow


def test_seed_timing_script(in_data_folder, monkeypatch, capsys):
    server = LoopbackServer(models=("llama3:latest",)).start()
    monkeypatch.setenv("OLLAMA_HOST", server.base_url)
    server.queue(Reply(text="He grew up reading and writing short stories."))
    try:
        start_time=time.time()
        load_start=time.time()
        documents=SimpleDirectoryReader("data").load_data()
        load_end=time.time()
        embed_start=time.time()
        # The seed's "BAAI/bge-base-en-v1.5" is not on this offline machine: the packaged model.
        Settings.embed_model=HuggingFaceEmbedding(model_name="sentence-transformers/all-MiniLM-L6-v2")
        embed_end=time.time()
        llm_start=time.time()
        Settings.llm=Ollama(model="llama3",request_timeout=360.0)
        llm_end=time.time()
        index_start=time.time()
        index=VectorStoreIndex.from_documents(documents)
        index_end=time.time()
        query_engine_start=time.time()
        query_engine=index.as_query_engine()
        query_engine_end=time.time()
        query_start=time.time()
        response=query_engine.query("What did the author do growing up?")
        query_end=time.time()
        print(response)
        print(f"Data loading time: {load_end-load_start} seconds")
        print(f"Embedding model setup time: {embed_end-embed_start} seconds")
        print(f"LLM setup time: {llm_end-llm_start} seconds")
        print(f"Index creation time: {index_end-index_start} seconds")
        print(f"Query engine creation time: {query_engine_end-query_engine_start} seconds")
        print(f"Query execution time: {query_end-query_start} seconds")
        print(f"Total time: {time.time()-start_time} seconds")
    finally:
        server.close()

    printed = capsys.readouterr().out
    assert printed.startswith("He grew up reading and writing short stories.\n")
    assert "Total time:" in printed
    request = server.requests_to("/api/chat")[0]
    assert request.json["model"] == "llama3"
    prompt = "\n".join(m["content"] for m in request.json["messages"])
    assert "What did the author do growing up?" in prompt
    assert response.source_nodes and "all-MiniLM-L6-v2" in index.embed_model_name
    assert Settings.llm.model == "ollama:llama3"
