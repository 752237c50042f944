"""Split and embed: how the index turns documents into nodes and vectors, outside its lock.

These are the slow steps of an insert, so ``VectorStoreIndex`` runs them before taking its lock
(searches keep running meanwhile) and then swaps the result in through ``state``. The embedder
is checked against the model an index on disk was built with, here, whether it was passed in or
resolved as the packaged default on first use.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

from ..embeddings.base import Embedder
from ..errors import ConfigError, EmbeddingError
from ..types import Document, Node
from .refresh import check_nodes

log = logging.getLogger(__name__)


def check_embedder(embedder: Any, built_with: str | None) -> Embedder:
    """``embedder``, if it is one and embeds with the model ``built_with`` (when known)."""
    if not isinstance(embedder, Embedder):
        raise ConfigError(f"embedder must implement the Embedder protocol, got {embedder!r}")
    if built_with and embedder.model_name != built_with:
        raise EmbeddingError(
            f"this index was built with the embedding model {built_with!r}, not "
            f"{embedder.model_name!r}: queries would be compared with vectors of another "
            f"model. Load it with an embedder for {built_with!r}, or rebuild it"
        )
    return embedder


def split_documents(splitter: Any, documents: Sequence[Document]) -> list[Node]:
    """The splitter's nodes for ``documents``, each checked to belong to one of them."""
    if not documents:
        return []
    nodes = list(splitter.get_nodes_from_documents(list(documents)))
    check_nodes(nodes, doc_ids={d.doc_id for d in documents})
    return nodes


def log_chunk_truncation(splitter: Any, embedder: Embedder) -> str | None:
    """Log (and return) a warning when the splitter's chunks exceed the embedder's window."""
    chunk_size = getattr(splitter, "chunk_size", None)
    if not isinstance(chunk_size, int):
        return None
    from ..chunking import check_embedder_window

    message = check_embedder_window(chunk_size, embedder)
    if message:
        log.warning("%s", message)
    return message
