"""Seed 001 4.5 "quering": index.as_query_engine().query(...), and the low-level form with a
RetrieverQueryEngine, a response synthesizer and a SimilarityPostprocessor."""

import pytest

from ragcore.compat.core import SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core import get_response_synthesizer
from ragcore.compat.core.postprocessor import SimilarityPostprocessor
from ragcore.compat.core.query_engine import RetrieverQueryEngine
from ragcore.compat.core.retrievers import VectorIndexRetriever

pytestmark = pytest.mark.slow


@pytest.fixture
def index(in_data_folder):
    return VectorStoreIndex.from_documents(SimpleDirectoryReader("data").load_data())


def test_seed_query_engine(index):
    query_engine = index.as_query_engine()
    response = query_engine.query(
        "Write an email to the user given their background information."
    )

    assert isinstance(response.response, str) and response.response
    assert response.source_nodes  # what the answer was drawn from


def test_seed_retriever_query_engine_with_a_cutoff(index):
    # The seed builds these two beforehand; LlamaIndex's documented way:
    retriever = VectorIndexRetriever(index=index, similarity_top_k=4)
    response_synthesizer = get_response_synthesizer()

    query_engine = RetrieverQueryEngine(
        retriever=retriever,
        response_synthesizer=response_synthesizer,
        node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.7)], # similarity cutoff
    )

    strict = query_engine.query("What does the Zen of Python say about namespaces?")
    assert strict.source_nodes == []  # no passage is that similar to the question
    assert "nothing in the indexed documents" in strict.response
    loose = RetrieverQueryEngine(
        retriever=retriever, node_postprocessors=[SimilarityPostprocessor(similarity_cutoff=0.2)]
    ).query("What does the Zen of Python say about namespaces?")
    assert "is better than" in loose.response  # quoted from the Zen of Python
    assert loose.source_nodes and all(n.score >= 0.2 for n in loose.source_nodes)
    assert loose.source_nodes[0].node.metadata["file_name"] == "pep-0020.rst"
