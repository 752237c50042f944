"""Seed 003 (llama_index source analysis): HierarchicalNodeParser and the level helpers."""

from pathlib import Path

from ragcore.compat.core.schema import Document
from ragcore.compat.core.node_parser import (HierarchicalNodeParser, get_leaf_nodes, get_root_nodes, get_deeper_nodes)


def test_seed_hierarchy_levels(corpus_dir: Path):
    # The seed elides its text (""" ... """); a real chapter from the corpus stands in.
    doc_text = (corpus_dir / "rust_book" / "src" / "ch04-01-what-is-ownership.md").read_text()
    docs=[Document(text=doc_text)]
    # default chunk size [2048, 512, 128]
    node_parser=HierarchicalNodeParser.from_defaults()
    nodes=node_parser.get_nodes_from_documents(docs)
    # Get specific kind of nodes
    leaf_nodes=get_leaf_nodes(nodes)
    root_nodes=get_root_nodes(nodes)
    level_nodes=get_deeper_nodes(nodes,depth=2)

    assert node_parser.chunk_sizes == [2048, 512, 128]
    assert root_nodes and all(n.parent_id is None for n in root_nodes)
    assert leaf_nodes and all(not n.child_ids for n in leaf_nodes)
    assert len(root_nodes) < len(leaf_nodes) < len(nodes)
    assert {n.node_id for n in level_nodes} == {n.node_id for n in leaf_nodes}
