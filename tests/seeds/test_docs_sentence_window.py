"""LlamaIndex's documented sentence-window retrieval: SentenceWindowNodeParser, then
MetadataReplacementPostProcessor shows the LLM each found sentence's window."""

import pytest

from ragcore.compat.core import SimpleDirectoryReader, VectorStoreIndex
from ragcore.compat.core.node_parser import SentenceWindowNodeParser
from ragcore.compat.core.postprocessor import MetadataReplacementPostProcessor

pytestmark = pytest.mark.slow


def test_sentence_window_query(in_data_folder):
    documents = SimpleDirectoryReader("data").load_data()

    # create the sentence window node parser w/ default settings
    node_parser = SentenceWindowNodeParser.from_defaults(
        window_size=3,
        window_metadata_key="window",
        original_text_metadata_key="original_text",
    )
    nodes = node_parser.get_nodes_from_documents(documents)
    sentence_index = VectorStoreIndex(nodes)

    query_engine = sentence_index.as_query_engine(
        similarity_top_k=2,
        # the target key defaults to `window` to match the node_parser's default
        node_postprocessors=[
            MetadataReplacementPostProcessor(target_metadata_key="window")
        ],
    )
    window_response = query_engine.query("Why was the NATO Alliance created?")
    print(window_response)

    window = window_response.source_nodes[0].node
    assert "NATO" in window.text
    assert len(window.text) > len(window.metadata["original_text"])
    assert "secure peace and stability in Europe" in window_response.response
