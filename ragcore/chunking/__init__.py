"""Chunking: documents -> nodes of at most ``chunk_size`` cl100k tokens, with exact offsets.

- ``SentenceSplitter`` (the default): paragraphs, then sentences, then finer; LlamaIndex's
  semantics in linear time.
- ``TokenTextSplitter``: words only, for text without sentence structure.
- ``HierarchicalNodeParser``: several chunk sizes as a parent/child tree, with the linear-time
  helpers ``get_leaf_nodes``, ``get_root_nodes``, ``get_child_nodes``, ``get_deeper_nodes``.
- ``check_embedder_window`` / ``warn_if_truncated``: chunk size vs the embedder's input window.

Every node's text is ``document.text[node.start_char:node.end_char]``; node ids are stable for
the same document and settings.
"""

from .boundaries import DEFAULT_SECONDARY_REGEX, sentences
from .hierarchical import (
    DEFAULT_CHUNK_SIZES,
    HierarchicalNodeParser,
    get_child_nodes,
    get_deeper_nodes,
    get_leaf_nodes,
    get_root_nodes,
)
from .nodes import NodeParser, metadata_tokens
from .sentence import DEFAULT_PARAGRAPH_SEPARATOR, SentenceSplitter
from .splitter import TextSplitter
from .token import TokenTextSplitter
from .window import (
    DEFAULT_CHUNK_OVERLAP,
    DEFAULT_CHUNK_SIZE,
    ChunkTruncationWarning,
    check_embedder_window,
    max_chunk_size,
    warn_if_truncated,
)

__all__ = [
    "DEFAULT_CHUNK_OVERLAP",
    "DEFAULT_CHUNK_SIZE",
    "DEFAULT_CHUNK_SIZES",
    "DEFAULT_PARAGRAPH_SEPARATOR",
    "DEFAULT_SECONDARY_REGEX",
    "ChunkTruncationWarning",
    "HierarchicalNodeParser",
    "NodeParser",
    "SentenceSplitter",
    "TextSplitter",
    "TokenTextSplitter",
    "check_embedder_window",
    "get_child_nodes",
    "get_deeper_nodes",
    "get_leaf_nodes",
    "get_root_nodes",
    "max_chunk_size",
    "metadata_tokens",
    "sentences",
    "warn_if_truncated",
]
