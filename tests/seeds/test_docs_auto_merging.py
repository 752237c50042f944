"""LlamaIndex's documented auto-merging retrieval: HierarchicalNodeParser, leaves indexed,
every node in a docstore, AutoMergingRetriever over the index's retriever."""

import pytest

from ragcore.compat.core import Document, StorageContext, VectorStoreIndex
from ragcore.compat.core.node_parser import HierarchicalNodeParser, get_leaf_nodes
from ragcore.compat.core.query_engine import RetrieverQueryEngine
from ragcore.compat.core.retrievers import AutoMergingRetriever
from ragcore.compat.core.storage.docstore import SimpleDocumentStore

pytestmark = pytest.mark.slow


def test_auto_merging_retriever(corpus_dir):
    text = (corpus_dir / "rust_book" / "src" / "ch04-01-what-is-ownership.md").read_text()
    docs = [Document(text=text)]

    node_parser = HierarchicalNodeParser.from_defaults()
    nodes = node_parser.get_nodes_from_documents(docs)
    leaf_nodes = get_leaf_nodes(nodes)

    docstore = SimpleDocumentStore()
    # insert nodes into docstore
    docstore.add_documents(nodes)
    # define storage context (will include vector store by default too)
    storage_context = StorageContext.from_defaults(docstore=docstore)
    base_index = VectorStoreIndex(leaf_nodes, storage_context=storage_context)

    base_retriever = base_index.as_retriever(similarity_top_k=12)
    retriever = AutoMergingRetriever(base_retriever, storage_context, verbose=True)

    query_str = "What are the ownership rules in Rust?"
    nodes = retriever.retrieve(query_str)
    base_nodes = base_retriever.retrieve(query_str)

    assert len(nodes) < len(base_nodes)
    assert any(n.node.child_ids for n in nodes)  # merged into parents
    query_engine = RetrieverQueryEngine.from_args(retriever)
    response = query_engine.query(query_str)
    assert response.source_nodes and any(n.node.child_ids for n in response.source_nodes)
