"""Seed 001 4.4.2 "Database": a Chroma collection as the vector store, nodes from an
IngestionPipeline, Settings.embed_model."""

import pytest

import chromadb
from ragcore.compat.vector_stores.chroma import ChromaVectorStore
from ragcore.compat.core import SimpleDirectoryReader, VectorStoreIndex, Settings, StorageContext
from ragcore.compat.core.ingestion import IngestionPipeline
from ragcore.compat.core.node_parser import SentenceSplitter
from ragcore.compat.embeddings.huggingface import HuggingFaceEmbedding
from ragcore.compat.llms.ollama import Ollama
from ragcore.compat.vector_stores.chroma import ChromaVectorStore

pytestmark = pytest.mark.slow


def test_seed_index_in_chroma(in_data_folder):
    db = chromadb.PersistentClient(path="./chroma_db")
    chroma_collection = db.get_or_create_collection("quickstart")
    # assign chroma as the vector_store to the context
    vector_store = ChromaVectorStore(chroma_collection=chroma_collection)
    storage_context = StorageContext.from_defaults(vector_store=vector_store)

    # The seed's "BAAI/bge-base-en-v1.5" is not on this offline machine: the packaged model.
    Settings.embed_model = HuggingFaceEmbedding(model_name="sentence-transformers/all-MiniLM-L6-v2")
    documents = SimpleDirectoryReader("./data").load_data()

    pipeline = IngestionPipeline(transformations=[SentenceSplitter()])
    nodes = pipeline.run(documents=documents)
    index = VectorStoreIndex(nodes, storage_context=storage_context)

    assert chroma_collection.count() == len(index) == len(nodes)
    response = index.as_query_engine().query("Why was the NATO Alliance created?")
    assert "to secure peace and stability in Europe" in response.response
