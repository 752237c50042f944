"""LlamaIndex's documented ``Document`` constructor (``id_``, ``doc_id``, ``metadata``,
``excluded_llm_metadata_keys``) and ``QueryEngineTool(query_engine=, metadata=ToolMetadata())``."""

import pytest

from ragcore.compat.core import Document, Settings, VectorStoreIndex
from ragcore.compat.core.query_engine import SubQuestionQueryEngine
from ragcore.compat.core.schema import MetadataMode
from ragcore.compat.core.tools import QueryEngineTool, ToolMetadata
from ragcore.errors import ConfigError

HERON = ("The grey heron is a long-legged wading bird. It hunts fish in shallow water, "
         "standing still for long periods before striking with its bill.")
OWL = ("The barn owl hunts at night. Its hearing is so precise that it can catch mice "
       "in complete darkness.")


def test_a_document_keeps_the_id_it_was_given(fake_embedder):
    Settings.embed_model = fake_embedder
    document = Document(text=HERON, id_="heron-doc")
    index = VectorStoreIndex.from_documents([document])
    response = index.as_query_engine().query("What does the heron hunt?")

    assert document.id_ == document.doc_id == "heron-doc"
    assert list(index.ref_doc_info) == ["heron-doc"]
    assert response.source_nodes[0].node.ref_doc_id == "heron-doc"


def test_document_metadata_and_the_keys_the_llm_does_not_see():
    document = Document(
        text="text",
        metadata={"filename": "<doc_file_name>", "category": "<category>"},
    )
    document.doc_id = "My new document id!"
    document.excluded_llm_metadata_keys = ["filename"]

    assert document.id_ == "My new document id!"
    assert document.get_content(metadata_mode=MetadataMode.LLM) == "category: <category>\n\ntext"
    assert "filename: <doc_file_name>" in document.get_content(metadata_mode=MetadataMode.EMBED)
    with pytest.raises(ConfigError, match="key: value"):
        Document(text="text", metadata_template="{key}=>{value}")


def test_query_engine_tools_made_from_tool_metadata(fake_embedder):
    Settings.embed_model = fake_embedder
    heron_engine = VectorStoreIndex.from_documents([Document(text=HERON)]).as_query_engine()
    owl_engine = VectorStoreIndex.from_documents([Document(text=OWL)]).as_query_engine()
    query_engine_tools = [
        QueryEngineTool(
            query_engine=heron_engine,
            metadata=ToolMetadata(
                name="heron",
                description="Provides information about the grey heron. "
                "Use a detailed plain text question as input to the tool.",
            ),
        ),
        QueryEngineTool(
            query_engine=owl_engine,
            metadata=ToolMetadata(name="owl", description="Provides information about owls."),
        ),
    ]
    engine = SubQuestionQueryEngine.from_defaults(query_engine_tools=query_engine_tools)
    output = query_engine_tools[1]("How does the barn owl hunt?")

    assert [t.metadata.name for t in query_engine_tools] == ["heron", "owl"]
    assert query_engine_tools[0].metadata.description.startswith("Provides information about")
    assert "darkness" in output.content and output.raw_output.source_nodes
    assert engine.query("How do herons and owls hunt?").response
