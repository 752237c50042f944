"""Seed 000, "Indexing" and "Query engine": VectorStoreIndex(nodes=..., embed_model=...,
show_progress=True), then index.as_query_engine().query("sup?")."""

import pytest

from ragcore.compat.core import SimpleDirectoryReader
from ragcore.compat.core import VectorStoreIndex
from ragcore.compat.core.node_parser import SentenceSplitter
from ragcore.compat.embeddings.huggingface import HuggingFaceEmbedding

pytestmark = pytest.mark.slow


def test_seed_indexes_nodes_and_answers(in_data_folder, capsys):
    documents = SimpleDirectoryReader("data").load_data()
    parser = SentenceSplitter()
    nodes = parser.get_nodes_from_documents(documents)
    # The seed defines embed_model elsewhere; this is the packaged model, by its usual name.
    embed_model = HuggingFaceEmbedding(model_name="sentence-transformers/all-MiniLM-L6-v2")

    index = VectorStoreIndex(nodes=nodes, embed_model=embed_model, show_progress=True)

    query_engine = index.as_query_engine()
    response = query_engine.query("sup?")

    assert len(index) == len(nodes)
    assert index.embed_model_name == embed_model.model_name
    assert response.response  # the offline answerer says what it found, or that it found none
    assert "Generating embeddings" in capsys.readouterr().err  # show_progress drew a bar
    answer = query_engine.query("Why was the NATO Alliance created?")
    assert "to secure peace and stability in Europe" in answer.response
    assert answer.source_nodes[0].node.metadata["file_name"] == "state_of_the_union.txt"
