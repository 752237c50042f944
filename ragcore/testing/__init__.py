"""Contract suites for ragcore's extension points, importable by code outside this repository.

    vector_store.py  VectorStoreContract: what every vector store must do
    llm.py           LLMContract: what every LLM backend must do
    embedder.py      EmbedderContract: what every embedder must do

Each is a pytest base class: subclass it in your own test file and provide the object under test.
Nothing here is imported by ``import ragcore``; only tests import it (it needs pytest).
"""
