"""LlamaIndex's documented ``QueryBundle`` uses: a retriever, a query engine and a node
postprocessor each given the question as a ``QueryBundle`` instead of a string."""

from ragcore.compat.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.postprocessor import SimilarityPostprocessor
from ragcore.compat.core.schema import QueryBundle


def test_query_bundle_everywhere_a_question_goes(in_data_folder, fake_embedder):
    Settings.embed_model = fake_embedder
    index = VectorStoreIndex.from_documents(SimpleDirectoryReader("data").load_data())
    query_bundle = QueryBundle("What did the president say about Putin?")

    retriever = index.as_retriever(similarity_top_k=3)
    nodes = retriever.retrieve(query_bundle)
    processor = SimilarityPostprocessor(similarity_cutoff=-1.0)
    filtered_nodes = processor.postprocess_nodes(nodes, query_bundle=query_bundle)
    response = index.as_query_engine().query(query_bundle)

    assert len(nodes) == 3 and filtered_nodes == nodes
    assert str(response) and response.source_nodes
    assert str(query_bundle) == query_bundle.query_str
