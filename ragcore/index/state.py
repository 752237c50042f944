"""IndexState: what an index holds, and the changes that keep its docstore and store in step.

A ``VectorStoreIndex`` is this state (the vector store, the docstore of node records, and what
the manifest records: embedding model, splitter settings, dates, the revision) plus the embedder
and splitter it works with and a lock. Every change here touches the docstore and the store
together and bumps the revision once; the index splits and embeds outside its lock and calls
these under it. ``folder.open_index_folder`` builds a state for ``load``, the constructor a fresh
one and ``attached`` one over a filled store; the index takes each the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ..errors import ConfigError, StoreError
from ..stores.base import VectorStore
from ..stores.simple.store import SimpleVectorStore
from ..types import Document, Node, ScoredNode
from .disk.bindings import record_ids
from .docstore import DocInfo, DocStore, utc_now
from .keyword import KeywordIndex
from .keyword_parts import keyword_index_of
from .disk.manifest import index_manifest
from .refresh import check_nodes, check_store

_CHECK_BATCH = 4096  # ``attached`` fetches vectors in batches of this many ids


@dataclass(slots=True)
class IndexState:
    """An index's data besides its collaborators (``keywords`` is derived, never saved)."""

    store: VectorStore
    docstore: DocStore = field(default_factory=DocStore)
    model: str | None = None  # the embedding model the vectors were made with, once on disk
    model_window: int | None = None  # and that model's input window (None when unknown)
    splitter_spec: dict[str, Any] | None = None  # the manifest's splitter, rebuilt on first use
    created: str = field(default_factory=utc_now)
    updated: str = ""
    revision: int = 0  # grows with every change; persisted, so other processes can compare it
    path: Path | None = None  # the folder last loaded from or persisted to
    saved_revision: int | None = None  # the revision ``path`` holds, as far as this index knows
    keywords: KeywordIndex | None = None  # BM25 postings, built on the first keyword query

    def __post_init__(self) -> None:
        self.updated = self.updated or self.created

    @classmethod
    def fresh(cls, store: VectorStore | None) -> IndexState:
        """A new state over ``store`` (default: an empty ``SimpleVectorStore``)."""
        store = SimpleVectorStore() if store is None else check_store(store)
        if len(store):
            raise ConfigError(
                f"the store already holds {len(store)} vectors: attach to them with "
                "VectorStoreIndex.from_vector_store(store, nodes=...), or pass an empty store"
            )
        return cls(store)

    @classmethod
    def attached(cls, store: VectorStore, nodes: list[Node]) -> IndexState:
        """A state over a store that already holds exactly the vectors of ``nodes``."""
        check_store(store)
        check_nodes(nodes)
        if len(store) != len(nodes):
            raise ConfigError(
                f"the store holds {len(store)} vectors but {len(nodes)} nodes were given: pass "
                "the nodes of exactly the vectors in the store (a store keeps no node text)"
            )
        for start in range(0, len(nodes), _CHECK_BATCH):
            try:
                store.get_vectors([n.node_id for n in nodes[start : start + _CHECK_BATCH]])
            except StoreError as exc:
                raise ConfigError(f"a node has no vector in the store: {exc}") from exc
        state = cls(store)
        state.docstore.add_nodes(nodes)
        state.touch()
        return state

    def touch(self) -> None:
        """Record a change: a new revision and a new ``updated`` date."""
        self.updated = utc_now()
        self.revision += 1

    def mark_saved(self, path: Path, revision: int) -> None:
        """Record that ``path`` now holds this state at ``revision`` (which may skip ahead)."""
        if self.keywords is not None and self.keywords.revision == self.revision:
            self.keywords.revision = revision  # the same nodes: the postings stay valid
        self.revision = self.saved_revision = revision
        self.path = path

    def in_sync_with(self, path: Path) -> bool:
        """Whether ``path`` holds exactly this state (loaded or saved there, unchanged since)."""
        return (
            self.path is not None
            and self.path.resolve() == path.resolve()
            and self.saved_revision == self.revision
        )

    # -- changes (the caller holds the index's lock) -----------------------------------------

    def add_nodes(self, nodes: list[Node], vectors: np.ndarray) -> None:
        """Add nodes with their vectors; a node id already indexed is replaced."""
        self.store.delete(self.docstore.remove_nodes(n.node_id for n in nodes))
        self._add(nodes, vectors)

    def replace_documents(
        self, documents: Sequence[Document], nodes: list[Node], vectors: np.ndarray
    ) -> None:
        """Swap in ``documents`` (whose nodes and vectors are given) for any with their ids."""
        # The docstore knows every node id of a document, so deleting by id is exact even for
        # store rows written before stores kept document ids.
        self.store.delete([i for d in documents for i in self.docstore.remove_doc(d.doc_id)])
        now = utc_now()
        for doc in documents:
            info = DocInfo(doc.doc_id, doc.hash, dict(doc.metadata), [], len(doc.text), now)
            self.docstore.add_doc(info)
        self._add(nodes, vectors)

    def set_document_info(self, doc: Document) -> None:
        self.docstore.set_info(doc.doc_id, doc.hash, dict(doc.metadata), len(doc.text))
        self.touch()

    def remove_document(self, doc_id: str) -> bool:
        if not self.docstore.has_doc(doc_id):
            return False
        self.store.delete(self.docstore.remove_doc(doc_id))
        self.touch()
        return True

    def remove_nodes(self, node_ids: Iterable[str]) -> int:
        removed = self.docstore.remove_nodes(node_ids)
        if removed:
            self.store.delete(removed)
            self.touch()
        return len(removed)

    def _add(self, nodes: list[Node], vectors: np.ndarray) -> None:
        if nodes:  # the store first: if it refuses the vectors, the docstore stays as it was
            ids, metadata = [n.node_id for n in nodes], [n.metadata for n in nodes]
            self.store.add(ids, vectors, metadata, doc_ids=[n.ref_doc_id for n in nodes])
        self.docstore.add_nodes(nodes)
        self.touch()

    # -- reading -----------------------------------------------------------------------------

    def doc_node_ids(self, doc_ids: Sequence[str] | None) -> list[str] | None:
        """The node ids of ``doc_ids`` (None: no restriction)."""
        if doc_ids is None:
            return None
        return [i for d in doc_ids for i in self.docstore.doc_node_ids(d)]

    def keyword_index(self) -> KeywordIndex:
        """The BM25 postings of the current revision, assembled on first use (never at load)
        from the saved segments' postings and the nodes added since (``keyword_parts``)."""
        if self.keywords is None or self.keywords.revision != self.revision:
            self.keywords = keyword_index_of(self.docstore, self.revision)
        return self.keywords

    def scored(self, hits: Iterable[tuple[str, float]]) -> list[ScoredNode]:
        # A database store may hold rows a writer elsewhere added after this index was loaded.
        return [ScoredNode(self.docstore.get(i), s) for i, s in hits if i in self.docstore]

    def store_hits(self, vector: Any, *, top_k: int, filters: Any,
                   node_ids: Sequence[str] | None) -> list[ScoredNode]:
        """The store's nearest nodes. The numpy store names each hit's row, which is the
        node's position in the docstore while both hold the same nodes in the same order (as
        loaded): the node is read there, so the first query after a load builds no id map."""
        query_rows = getattr(self.store, "query_rows", None)
        if query_rows is None:
            return self.scored(self.store.query(vector, top_k=top_k, filters=filters,
                                                node_ids=node_ids))
        found = query_rows(vector, top_k=top_k, filters=filters, node_ids=node_ids)
        nodes = [(self.docstore.get_nth(i, row), s) for row, i, s in found]
        return [ScoredNode(node, s) for node, s in nodes if node is not None]

    def keyword_scored(self, keywords: KeywordIndex, hits: Iterable[tuple[int, float]]
                       ) -> list[ScoredNode]:
        """Keyword hits (rows of ``keywords``, which are all held): each node found on its
        row, so the first query after a load builds no map of every node id."""
        get, ids = self.docstore.get_at, keywords.node_ids
        return [ScoredNode(get(ids[r], r, keywords.source), s) for r, s in hits]

    def manifest(
        self, *, model: str, max_input_tokens: int | None, splitter: dict[str, Any] | None,
        revision: int,
    ) -> dict[str, Any]:
        """What ``persist`` writes into manifest.json for this state at ``revision``, with the
        digests that bind its files together (``bindings``)."""
        manifest = index_manifest(
            model=model, max_input_tokens=max_input_tokens, store=self.store,
            splitter=splitter or self.splitter_spec, docstore=self.docstore,
            created=self.created, updated=self.updated, revision=revision,
        )
        return {**manifest, "ids": record_ids(self.docstore, self.store)}
