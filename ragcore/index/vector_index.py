"""VectorStoreIndex: documents split into nodes, nodes embedded into a vector store, kept in sync.

The index owns three collaborators, all passed in or resolved in one visible place:
a splitter (default ``ragcore.chunking.SentenceSplitter()``), an embedder (default: the
packaged all-MiniLM-L6-v2, resolved on first use and never at load), and a vector store
(default ``SimpleVectorStore``; any ``VectorStore`` registered in ``ragcore.stores.registry``).
Everything else it holds is an ``IndexState`` (``state``): the docstore of node records and
document hashes (``docstore``), the manifest's facts, the revision and the BM25 postings
(``keyword``: assembled on the first keyword query and after changes, never at load, from the
postings each node segment saves, ``postings``, and those of the nodes added since).
The folder format and atomic writes are in ``folder``, ``generations`` and ``manifest``; which
documents an upsert re-indexes (``RefreshReport``) in ``refresh``; splitting and embedding in
``split_embed``.

Unlike LlamaIndex, inserting a document whose id is already indexed replaces it (ids are stable,
so re-ingesting a file updates it), and deleting a document then persisting removes it from disk.
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from ..embeddings.base import Embedder, Progress, embed_nodes
from ..stores import MetadataFilters, VectorStore, as_filters
from ..types import Document, Node, ScoredNode
from .docstore import DocInfo
from .disk.commit import commit_index
from .disk.folder import open_index_folder
from .keyword import B, K1, KeywordIndex
from .disk.manifest import build_splitter, index_stats
from .disk.merger import merge_segments
from .refresh import RefreshReport, check_documents, check_nodes, check_vectors, plan_refresh
from .split_embed import check_embedder, log_chunk_truncation, split_documents
from .engine_methods import EngineMethods
from .state import IndexState

__all__ = ["RefreshReport", "VectorStoreIndex"]


class VectorStoreIndex(EngineMethods):
    """Documents, their nodes and the nodes' vectors, searchable by similarity."""

    def __init__(
        self,
        nodes: Sequence[Node] = (),
        *,
        embedder: Embedder | None = None,
        store: VectorStore | None = None,
        splitter: Any = None,
        progress: Progress | None = None,
    ) -> None:
        self._attach(IndexState.fresh(store), embedder, splitter)
        if nodes:
            self.insert_nodes(nodes, progress=progress)

    @classmethod
    def _with_state(
        cls, state: IndexState, embedder: Embedder | None, splitter: Any
    ) -> VectorStoreIndex:
        """An index over ``state`` built without ``__init__`` (``load``, ``from_vector_store``)."""
        index = cls.__new__(cls)
        index._attach(state, embedder, splitter)
        return index

    def _attach(self, state: IndexState, embedder: Embedder | None, splitter: Any) -> None:
        """The one place an index gets its state and collaborators (every constructor)."""
        self._state = state
        self._embedder = None if embedder is None else check_embedder(embedder, state.model)
        self._splitter = splitter
        self._window_checked = False
        self._lock = threading.RLock()

    @classmethod
    def from_documents(
        cls,
        documents: Iterable[Document],
        *,
        embedder: Embedder | None = None,
        splitter: Any = None,
        store: VectorStore | None = None,
        progress: Progress | None = None,
    ) -> VectorStoreIndex:
        """Split, embed and index ``documents``; ``progress(done, total)`` counts nodes embedded."""
        index = cls(embedder=embedder, store=store, splitter=splitter)
        index._upsert_documents(documents, force=True, progress=progress)
        return index

    @classmethod
    def from_vector_store(
        cls,
        store: VectorStore,
        *,
        nodes: Sequence[Node] = (),
        embedder: Embedder | None = None,
        splitter: Any = None,
    ) -> VectorStoreIndex:
        """An index over a store that already holds the vectors of ``nodes``; nothing is embedded.

        A vector store keeps ids, vectors and metadata, never node text, so the index needs the
        node records for the vectors (kept from an ingestion run, say): every node must have a
        vector in the store, and every vector a node, else ConfigError says which. A store of
        vectors whose nodes are lost cannot back an index that answers with text: re-ingest
        the documents instead. Documents known only through their nodes have no content hash,
        so ``refresh_ref_docs`` re-embeds them once.
        """
        return cls._with_state(IndexState.attached(store, list(nodes)), embedder, splitter)

    @classmethod
    def load(
        cls, path: str | Path, *, embedder: Embedder | None = None, splitter: Any = None
    ) -> VectorStoreIndex:
        """Open a persisted index with the store its manifest names; loads neither the
        embedding model nor the tokenizer."""
        return cls._with_state(open_index_folder(Path(path)), embedder, splitter)

    def __len__(self) -> int:
        return len(self._state.docstore)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._state.docstore

    def __repr__(self) -> str:
        docs = self._state.docstore.doc_count()
        return f"VectorStoreIndex(documents={docs}, nodes={len(self)}, revision={self.revision})"

    # -- collaborators and state -------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """The embedder; the packaged default is resolved here on first use (not at load)."""
        if self._embedder is None:
            from ..embeddings import default_embedder

            self._embedder = check_embedder(default_embedder(self._state.model), self._state.model)
        return self._embedder

    @property
    def embed_model_name(self) -> str:
        if self._embedder is not None:
            return self._embedder.model_name
        return self._state.model or self.embedder.model_name

    @property
    def store(self) -> VectorStore:
        return self._state.store

    @property
    def splitter(self) -> Any:
        """The splitter; after load it is rebuilt from the manifest's settings on first use."""
        if self._splitter is None:
            self._splitter = build_splitter(self._state.splitter_spec)
        return self._splitter

    @property
    def path(self) -> Path | None:
        """The folder this index was last loaded from or persisted to."""
        return self._state.path

    @property
    def revision(self) -> int:
        """Grows with every change, and is what ``persist`` records (``folder.read_revision``
        reads it back): equal revisions at one path mean the same content."""
        return self._state.revision

    # -- adding and removing -----------------------------------------------------------------

    def insert(self, document: Document, *, progress: Progress | None = None) -> None:
        """Split, embed and add one document, replacing any indexed document with its id."""
        self._upsert_documents([document], force=True, progress=progress)

    def refresh_ref_docs(
        self, documents: Iterable[Document], *, progress: Progress | None = None
    ) -> RefreshReport:
        """Index new documents, re-index those whose content hash changed, skip the rest."""
        return self._upsert_documents(documents, force=False, progress=progress)

    def insert_nodes(
        self,
        nodes: Sequence[Node],
        *,
        vectors: np.ndarray | None = None,
        progress: Progress | None = None,
    ) -> None:
        """Add nodes as they are (embedded here unless ``vectors`` are given); same ids replace."""
        nodes = list(nodes)
        check_nodes(nodes)
        vectors = self._embed(nodes, progress) if vectors is None else np.asarray(vectors)
        check_vectors(nodes, vectors)
        if nodes:
            with self._lock:
                self._state.add_nodes(nodes, vectors)

    def upsert_documents(
        self, documents: Sequence[Document], nodes: Sequence[Node], vectors: np.ndarray
    ) -> None:
        """Add or replace documents with nodes already split and embedded (ingestion uses it)."""
        nodes = list(nodes)
        check_nodes(nodes, doc_ids={d.doc_id for d in documents})
        vectors = np.asarray(vectors)
        check_vectors(nodes, vectors)
        if documents:
            with self._lock:
                self._state.replace_documents(documents, nodes, vectors)

    def set_document_info(self, document: Document) -> None:
        """Record ``document``'s hash and metadata over its nodes already in the index (an
        ingestion adding a document a slice at a time ends with this)."""
        with self._lock:
            self._state.set_document_info(document)

    def delete_ref_doc(self, doc_id: str) -> bool:
        """Remove a document and its nodes; False if it was not indexed."""
        with self._lock:
            return self._state.remove_document(doc_id)

    def delete_nodes(self, node_ids: Iterable[str]) -> int:
        """Remove nodes by id (their documents stay); returns how many were removed."""
        with self._lock:
            return self._state.remove_nodes(node_ids)

    def _upsert_documents(
        self, documents: Iterable[Document], *, force: bool, progress: Progress | None
    ) -> RefreshReport:
        documents = check_documents(documents)
        with self._lock:
            report, todo = plan_refresh(documents, self._state.docstore, force=force)
        # Split and embed outside the lock: searches keep running while documents are ingested.
        if todo and not self._window_checked:
            self._window_checked = True
            log_chunk_truncation(self.splitter, self.embedder)
        nodes = split_documents(self.splitter, todo)
        vectors = self._embed(nodes, progress)
        if todo:
            with self._lock:
                self._state.replace_documents(todo, nodes, vectors)
        return report

    def _embed(self, nodes: Sequence[Node], progress: Progress | None) -> np.ndarray:
        if not nodes:  # nothing to embed: do not resolve the default embedder for it
            return np.zeros((0, self.store.dim or 0), dtype=np.float32)
        return embed_nodes(self.embedder, nodes, progress=progress)

    # -- reading -----------------------------------------------------------------------------

    def ref_doc_ids(self) -> list[str]:
        return self._state.docstore.doc_ids()

    def doc_info(self, doc_id: str) -> DocInfo | None:
        """Hash, metadata, node ids, size and indexing date of one document (None if absent)."""
        return self._state.docstore.doc(doc_id)

    def doc_infos(self) -> list[DocInfo]:
        """Every document's info, in ``ref_doc_ids`` order."""
        docstore = self._state.docstore
        return [docstore.doc(doc_id) for doc_id in docstore.doc_ids()]

    def get_node(self, node_id: str) -> Node:
        """A node by id (raises StoreError if it is not in the index)."""
        with self._lock:
            return self._state.docstore.get(node_id)

    def get_nodes(self, node_ids: Iterable[str], *, keep: bool = True) -> list[Node]:
        """Nodes by id; ``keep=False`` leaves those read from disk undecoded in memory after."""
        with self._lock:
            return [self._state.docstore.get(i, keep=keep) for i in node_ids]

    def nodes_for_doc(self, doc_id: str) -> list[Node]:
        """A document's nodes in document order (empty if the document is not indexed)."""
        return self.get_nodes(self._state.docstore.doc_node_ids(doc_id))

    def node_ids(self) -> list[str]:
        """Every node id, document by document (in the order ``all_nodes`` yields them)."""
        return self._state.docstore.node_ids()

    def all_nodes(self) -> Iterator[Node]:
        """Every node, document by document (decoded lazily as the iterator advances)."""
        return self._state.docstore.iter_nodes()

    def get_vectors(self, node_ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of ``node_ids``, rows in that order (StoreError for unknown ids)."""
        with self._lock:
            return self.store.get_vectors(list(node_ids))

    def search(
        self,
        vector: np.ndarray,
        *,
        top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> list[ScoredNode]:
        """Nodes nearest to ``vector``, best first, optionally limited to some documents."""
        filters = as_filters(filters)
        with self._lock:
            node_ids = self._state.doc_node_ids(doc_ids)
            return self._state.store_hits(vector, top_k=top_k, filters=filters,
                                          node_ids=node_ids)

    def keyword_search(
        self, query: str, *, top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        k1: float = K1, b: float = B,
    ) -> list[ScoredNode]:
        """Nodes whose words best match ``query`` (BM25 with ``k1`` and ``b`` scores), best
        first; like ``search``."""
        filters = as_filters(filters)
        with self._lock:
            node_ids, keywords = self._state.doc_node_ids(doc_ids), self._state.keyword_index()
            hits = keywords.hits(
                query, top_k=top_k, filters=filters, node_ids=node_ids, k1=k1, b=b
            )
            return self._state.keyword_scored(keywords, hits)

    def reading(self) -> AbstractContextManager[Any]:
        """Hold still while a retriever reads (vector and keyword sides of one hybrid search
        see the same nodes): the index's lock, which every change takes."""
        return self._lock

    def keyword_index(self) -> KeywordIndex:
        """BM25 postings over the nodes, built on first use (never at load) and after changes."""
        with self._lock:
            return self._state.keyword_index()

    def stats(self) -> dict[str, Any]:
        """Counts, model, dates and size on disk (tokens are None: counting needs the tokenizer)."""
        state = self._state
        return index_stats(
            state.docstore, state.store, model=self.embed_model_name,
            created=state.created, updated=state.updated, path=state.path,
        )

    # -- disk --------------------------------------------------------------------------------

    def persist(self, path: str | Path) -> None:
        """Write the index to a folder as its next generation, published atomically (readers
        see the old or the new index, never a mix); the folder's revision only grows (see
        ``folder.revision_to_write``). A commit writes what changed since the last one and never
        merges segments: ``merge_segments`` does (an ingestion runs it after its commits)."""
        commit_index(self, Path(path))

    def merge_segments(self, path: str | Path) -> bool:
        """Run the size-tiered segment merges due in the index persisted at ``path`` as its
        next generation (``merger``); False when none is due."""
        return merge_segments(self, Path(path))
