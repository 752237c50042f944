"""HierarchicalNodeParser: the same text as nodes at several chunk sizes, linked parent/child.

LlamaIndex's parser for auto-merging retrieval: documents are split into big chunks (2048
tokens by default), each of those into medium ones (512), each of those into small ones (128);
every node knows its parent and children, so a retriever can embed the small leaves and hand the
LLM their bigger parents. All levels come back in one list, level by level (roots first), as in
LlamaIndex; ``get_leaf_nodes``, ``get_root_nodes`` and ``get_deeper_nodes`` pick out a level.

It differs from the single-size splitters in reusing one ``SentenceSplitter`` per level over one
tokenization of each document, and in giving every node, at every level, exact offsets into the
document (not into its parent) and the document as ``ref_doc_id``. Prev/next links join the
nodes of one level of one document in order, across parents. The helpers run in linear time
(LlamaIndex's test membership in a list makes them quadratic). A long document is tokenized and
split a block at a time (``blocks``), so memory stays bounded; no root spans two blocks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import ConfigError
from ..types import Document, Node
from .blocks import text_blocks
from .nodes import Progress, build_nodes, link_siblings, text_budget
from .sentence import SentenceSplitter
from .splitter import check_int
from .token_index import TokenIndex
from .window import DEFAULT_CHUNK_OVERLAP

DEFAULT_CHUNK_SIZES = (2048, 512, 128)


class HierarchicalNodeParser:
    """Split documents at each of several decreasing chunk sizes into a tree of nodes."""

    def __init__(
        self,
        *,
        splitters: Sequence[SentenceSplitter],
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> None:
        if not splitters:
            raise ConfigError("HierarchicalNodeParser needs at least one splitter (one per level)")
        sizes = [s.chunk_size for s in splitters]
        if any(big <= small for big, small in zip(sizes, sizes[1:])):
            raise ConfigError(
                f"chunk sizes {sizes} must decrease from the root level to the leaves, "
                "e.g. [2048, 512, 128]"
            )
        self.splitters = tuple(splitters)
        self.include_metadata = bool(include_metadata)
        self.include_prev_next_rel = bool(include_prev_next_rel)

    @classmethod
    def from_defaults(
        cls,
        *,
        chunk_sizes: Sequence[int] | None = None,
        chunk_overlap: int = DEFAULT_CHUNK_OVERLAP,
        include_metadata: bool = True,
        include_prev_next_rel: bool = True,
    ) -> HierarchicalNodeParser:
        """One ``SentenceSplitter`` per chunk size (default 2048, 512, 128 tokens)."""
        sizes = list(DEFAULT_CHUNK_SIZES if chunk_sizes is None else chunk_sizes)
        for size in sizes:
            check_int("each of chunk_sizes", size, 1)
        splitters = [
            SentenceSplitter(chunk_size=size, chunk_overlap=chunk_overlap) for size in sizes
        ]
        return cls(
            splitters=splitters,
            include_metadata=include_metadata,
            include_prev_next_rel=include_prev_next_rel,
        )

    @property
    def chunk_sizes(self) -> list[int]:
        return [s.chunk_size for s in self.splitters]

    def settings(self) -> dict[str, Any]:
        """Everything that decides the nodes: for cache keys and index manifests."""
        return {
            "splitter": type(self).__name__,
            "levels": [s.settings() for s in self.splitters],
            "include_metadata": self.include_metadata,
            "include_prev_next_rel": self.include_prev_next_rel,
        }

    def get_nodes_from_documents(
        self, documents: Sequence[Document], *, progress: Progress | None = None
    ) -> list[Node]:
        """Nodes of every level for every document: all roots first, then each deeper level."""
        levels: list[list[Node]] = [[] for _ in self.splitters]
        for done, document in enumerate(documents, start=1):
            for depth, nodes in enumerate(self._document_levels(document)):
                levels[depth].extend(nodes)
            if progress is not None:
                progress(done, len(documents))
        return [node for level in levels for node in level]

    def _document_levels(self, document: Document) -> list[list[Node]]:
        """The nodes of one document, one list per level, with parent/child links set."""
        text = document.text
        levels: list[list[Node]] = [[] for _ in self.splitters]
        if not text or text.isspace():
            return levels
        for first, last in text_blocks(text):
            block = text if last - first == len(text) else text[first:last]
            if block.isspace():
                continue
            for depth, nodes in enumerate(self._block_levels(document, TokenIndex(block), first)):
                levels[depth].extend(nodes)
        if self.include_prev_next_rel:
            for level in levels:
                link_siblings(level)
        return levels

    def _block_levels(self, document: Document, index: TokenIndex,
                      offset: int) -> list[list[Node]]:
        """The nodes of one block of a document (``index.text``, at ``offset`` in it)."""
        # (start, end, node) of each parent in the block; the block is the parent of the roots.
        parents: list[tuple[int, int, Node | None]] = [(0, len(index.text), None)]
        levels: list[list[Node]] = []
        for depth, splitter in enumerate(self.splitters):
            budget = text_budget(
                splitter.chunk_size, document, include_metadata=self.include_metadata
            )
            salt = f"{splitter.settings_hash()}/level{depth}"
            level: list[Node] = []
            spans_of_level: list[tuple[int, int, Node | None]] = []
            for start, end, parent in parents:
                spans = splitter.spans(index, start, end, budget=budget)
                children = build_nodes(
                    document,
                    [(s + offset, e + offset) for s, e in spans],
                    # the same span can fall under two overlapping parents: the parent's id
                    # in the salt keeps the two children's ids apart
                    salt=salt if parent is None else f"{salt}/{parent.node_id}",
                    include_metadata=self.include_metadata,
                    include_prev_next_rel=False,
                )
                if parent is not None:
                    _adopt(parent, children)
                level.extend(children)
                spans_of_level.extend((s, e, child) for (s, e), child in zip(spans, children))
            levels.append(level)
            parents = spans_of_level
        return levels


def _adopt(parent: Node, children: Iterable[Node]) -> None:
    for child in children:
        child.parent_id = parent.node_id
        parent.child_ids.append(child.node_id)


def get_leaf_nodes(nodes: Iterable[Node]) -> list[Node]:
    """Nodes without children (the smallest chunks), in the given order."""
    return [node for node in nodes if not node.child_ids]


def get_root_nodes(nodes: Iterable[Node]) -> list[Node]:
    """Nodes without a parent (the biggest chunks), in the given order."""
    return [node for node in nodes if node.parent_id is None]


def get_child_nodes(nodes: Iterable[Node], all_nodes: Iterable[Node]) -> list[Node]:
    """The children of ``nodes`` found in ``all_nodes``, in the order of ``all_nodes``."""
    wanted = {child for node in nodes for child in node.child_ids}
    return [node for node in all_nodes if node.node_id in wanted]


def get_deeper_nodes(nodes: Sequence[Node], depth: int = 1) -> list[Node]:
    """Nodes ``depth`` levels below the roots (0: the roots), in the order of ``nodes``."""
    check_int("depth", depth, 0)
    level = get_root_nodes(nodes)
    for _ in range(depth):
        level = get_child_nodes(level, nodes)
    return level
