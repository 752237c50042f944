"""LlamaIndex's documented HyDE and query-fusion snippets (a scripted LLM writes the passage
and the queries; the embedder is the fast fake one)."""

from ragcore import FakeLLM
from ragcore.compat.core import Settings, SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.indices.query.query_transform import HyDEQueryTransform
from ragcore.compat.core.query_engine import TransformQueryEngine
from ragcore.compat.core.retrievers import QueryFusionRetriever
from ragcore.trace import Trace


def test_hyde_query_engine(in_data_folder, fake_embedder):
    Settings.embed_model = fake_embedder
    Settings.llm = FakeLLM(["Russia invaded Ukraine and the world imposed sanctions."],
                           default="The president condemned the invasion.")
    index = VectorStoreIndex.from_documents(SimpleDirectoryReader("data").load_data())
    query_engine = index.as_query_engine()
    query_str = "What did the president say about Putin?"

    hyde = HyDEQueryTransform(include_original=True)
    hyde_query_engine = TransformQueryEngine(query_engine, hyde)
    trace = Trace()
    response = hyde_query_engine.query(query_str, trace=trace)

    assert response.response == "The president condemned the invasion."
    assert trace.notes["hyde_passage"].startswith("Russia invaded Ukraine")
    assert response.source_nodes


def test_query_fusion_retriever(in_data_folder, fake_embedder):
    Settings.embed_model = fake_embedder
    Settings.llm = FakeLLM(["Ukraine invasion\nsanctions on Russia\nNATO response"])
    index = VectorStoreIndex.from_documents(SimpleDirectoryReader("data").load_data())

    retriever = QueryFusionRetriever(
        [index.as_retriever()],
        similarity_top_k=2,
        num_queries=4,  # set this to 1 to disable query generation
        use_async=True,
        verbose=True,
        # query_gen_prompt="...",  # we could override the query generation prompt here
    )
    trace = Trace()
    nodes_with_scores = retriever.retrieve("What did the president say about Putin?", trace=trace)

    assert len(nodes_with_scores) == 2
    assert len(trace.notes["fusion_queries"]) == 4
