"""What an upsert into the index changes, decided before anything is split or embedded.

``plan_refresh`` compares incoming documents with the document store by id and content hash:
new ids are added, changed hashes are re-indexed, the rest are skipped (unless forced, as by
``insert``). The result is a ``RefreshReport``, which ``VectorStoreIndex.refresh_ref_docs``
returns to its caller; ``index`` then splits, embeds and swaps in only the documents it lists.
The checks of what callers hand the index (documents, nodes, vectors, a store) live here too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from .docstore import DocStore
from ..errors import ConfigError, StoreError
from ..stores.base import VectorStore
from ..types import Document, Node


@dataclass(slots=True)
class RefreshReport:
    """Which documents ``refresh_ref_docs`` indexed for the first time, re-indexed, or skipped."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    flags: list[bool] = field(default_factory=list)  # per input document: was it (re)indexed?

    @property
    def changed(self) -> list[str]:
        return self.added + self.updated


def check_store(store: Any) -> VectorStore:
    if not isinstance(store, VectorStore):
        raise ConfigError(
            f"store must implement the VectorStore protocol (ragcore.stores.base), got {store!r}"
        )
    return store


def check_documents(documents: Iterable[Document]) -> list[Document]:
    documents = list(documents)
    for doc in documents:
        if not isinstance(doc, Document):
            raise ConfigError(f"expected Document objects, got {type(doc).__name__}")
    return documents


class KnownHashes:
    """The content hashes of the documents an index holds, for ``plan_refresh`` (an index in a
    database reads them in one query; ``DocStore`` answers the same two questions)."""

    def __init__(self, hashes: dict[str, str | None]) -> None:
        self.hashes = hashes

    def has_doc(self, doc_id: str) -> bool:
        return doc_id in self.hashes

    def doc_hash(self, doc_id: str) -> str | None:
        return self.hashes.get(doc_id)


def plan_refresh(
    documents: Sequence[Document], docstore: DocStore | KnownHashes, *, force: bool
) -> tuple[RefreshReport, list[Document]]:
    """The report, and the documents to (re)index: with ``force``, every one of them.

    A repeated id counts once and its last document wins. The caller holds the index's lock.
    """
    latest = {doc.doc_id: doc for doc in documents}
    report = RefreshReport()
    todo: list[Document] = []
    for doc_id, doc in latest.items():
        known = docstore.has_doc(doc_id)
        if known and not force and docstore.doc_hash(doc_id) == doc.hash:
            report.unchanged.append(doc_id)
            continue
        (report.updated if known else report.added).append(doc_id)
        todo.append(doc)
    changed = set(report.changed)
    report.flags = [doc.doc_id in changed for doc in documents]
    return report, todo


def check_vectors(nodes: Sequence[Node], vectors: np.ndarray) -> None:
    if vectors.ndim != 2 or vectors.shape[0] != len(nodes):
        raise StoreError(f"got vectors of shape {vectors.shape} for {len(nodes)} nodes")


def check_nodes(nodes: Sequence[Node], *, doc_ids: set[str] | None = None) -> None:
    """Nodes must be unique and, when ``doc_ids`` is given, belong to one of those documents."""
    seen: set[str] = set()
    for node in nodes:
        if not isinstance(node, Node):
            raise ConfigError(f"expected Node objects, got {type(node).__name__}")
        if node.node_id in seen:
            raise StoreError(f"node id {node.node_id!r} appears twice: node ids must be unique")
        seen.add(node.node_id)
        if doc_ids is not None and node.ref_doc_id not in doc_ids:
            raise StoreError(
                f"node {node.node_id!r} has ref_doc_id {node.ref_doc_id!r}, expected one of the "
                "documents being indexed: the splitter must set ref_doc_id on every node"
            )
