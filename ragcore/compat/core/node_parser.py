"""``llama_index.core.node_parser``: ragcore's splitters and hierarchy helpers."""

from ...chunking import (
    HierarchicalNodeParser,
    SentenceSplitter,
    TokenTextSplitter,
    get_child_nodes,
    get_deeper_nodes,
    get_leaf_nodes,
    get_root_nodes,
)
from ...retrieval.sentence_window import SentenceWindowNodeParser

__all__ = ["HierarchicalNodeParser", "SentenceSplitter", "SentenceWindowNodeParser",
           "TokenTextSplitter", "get_child_nodes",
           "get_deeper_nodes", "get_leaf_nodes", "get_root_nodes"]
