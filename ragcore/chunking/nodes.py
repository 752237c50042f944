"""From chunk spans to ``Node``s: stable ids, copied metadata, prev/next links, metadata budget.

Shared by every splitter. A node's text is ``document.text[start_char:end_char]``. Its id is a
uuid5 of the document id, the offsets and the splitter's settings, so splitting the same document
the same way gives the same ids (caches and citations stay valid across runs).

The metadata budget follows LlamaIndex: the metadata header that the embedder or the LLM reads in
front of every chunk (``Node.content``) takes tokens from ``chunk_size``; the text gets the rest.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from ..errors import ChunkingError
from ..tokens import get_tokenizer
from ..types import Document, MetadataMode, Node

# progress(done, total): called after each document.
Progress = Callable[[int, int], None]

# Fewest tokens of text a chunk may be left with once metadata is counted (LlamaIndex warns
# below 50); for small chunk sizes, half of chunk_size.
MIN_TEXT_TOKENS = 50
# A single character can be up to 4 cl100k tokens, so no budget may go below that.
MIN_BUDGET = 4

_NODE_NAMESPACE = uuid.UUID("6f1d2c4e-8a7b-5e3f-9c1d-2b4a6e8f0a13")


@runtime_checkable
class NodeParser(Protocol):
    """Turns documents into nodes (chunks). Every splitter here implements it."""

    def get_nodes_from_documents(
        self, documents: Sequence[Document], *, progress: Progress | None = None
    ) -> list[Node]:
        """Split each document into nodes, in document order."""
        ...


def metadata_tokens(document: Document) -> int:
    """Tokens the metadata header takes in front of a chunk, for the embedder or the LLM."""
    sizes = [0]
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        header = document.metadata_str(mode)
        if header:
            # Node.content puts the header, a blank line, then the text.
            sizes.append(len(get_tokenizer().encode_ordinary(header + "\n\n")))
    return max(sizes)


def text_budget(chunk_size: int, document: Document, *, include_metadata: bool) -> int:
    """Tokens left for a chunk's text once its metadata header is counted."""
    if not include_metadata:
        return chunk_size
    used = metadata_tokens(document)
    if used == 0:
        return chunk_size
    budget = chunk_size - used
    needed = min(MIN_TEXT_TOKENS, max(MIN_BUDGET, chunk_size // 2))
    if budget < needed:
        keys = ", ".join(map(str, document.metadata)) or "none"
        raise ChunkingError(
            f"document {document.doc_id!r}: its metadata takes {used} tokens of the chunk_size of "
            f"{chunk_size}, leaving {max(budget, 0)} for text (at least {needed} needed). "
            f"Use a bigger chunk_size (at least {used + needed}), or fewer or shorter metadata "
            f"values (keys: {keys}), or exclude keys from the embedded and LLM text "
            "(excluded_embed_metadata_keys / excluded_llm_metadata_keys)"
        )
    return budget


def node_id(doc_id: str, start: int, end: int, salt: str) -> str:
    """A stable id for the node at [start, end) of a document split with settings ``salt``."""
    return str(uuid.uuid5(_NODE_NAMESPACE, f"{doc_id}\x1f{start}\x1f{end}\x1f{salt}"))


def build_nodes(
    document: Document,
    spans: Sequence[tuple[int, int]],
    *,
    salt: str,
    include_metadata: bool,
    include_prev_next_rel: bool,
) -> list[Node]:
    """One node per span of ``document.text``, linked prev/next in order when asked."""
    text, doc_id = document.text, document.doc_id
    nodes = [
        Node(
            text=text[start:end],
            node_id=node_id(doc_id, start, end, salt),
            ref_doc_id=doc_id,
            start_char=start,
            end_char=end,
            metadata=dict(document.metadata) if include_metadata else {},
            excluded_embed_metadata_keys=list(document.excluded_embed_metadata_keys),
            excluded_llm_metadata_keys=list(document.excluded_llm_metadata_keys),
        )
        for start, end in spans
    ]
    if include_prev_next_rel:
        link_siblings(nodes)
    return nodes


def link_siblings(nodes: Sequence[Node]) -> None:
    """Set prev_id/next_id so ``nodes`` form a chain in the given order."""
    for before, after in zip(nodes, nodes[1:]):
        before.next_id = after.node_id
        after.prev_id = before.node_id
