"""VectorStoreIndex: documents split into nodes, nodes embedded into a vector store, kept in sync.

The index owns three collaborators, all passed in or resolved in one visible place:
a splitter (default ``ragcore.chunking.SentenceSplitter()``), an embedder (default: the
packaged all-MiniLM-L6-v2, resolved on first use and never at load), and a vector store
(default ``SimpleVectorStore``). Node records and document hashes live in ``ragcore.index.docstore``;
the folder format and atomic writes in ``ragcore.index.folder``; deciding which documents an upsert
re-indexes (``RefreshReport``) in ``ragcore.index.refresh``. BM25 postings for keyword search
(``ragcore.index.keyword``) are derived from the nodes: built on the first keyword query, rebuilt after
any change (every change bumps a version counter), never persisted and never built at load.

Unlike LlamaIndex, inserting a document whose id is already indexed replaces it (ids are stable,
so re-ingesting a file updates it), and deleting a document then persisting removes it from disk.
"""

from __future__ import annotations

import logging
import threading
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Sequence

import numpy as np

from ..embeddings.base import Embedder, Progress, embed_nodes
from ..errors import ConfigError, EmbeddingError, StoreError
from ..retrieval import Retriever, RetrievalMode, make_retriever
from ..stores import MetadataFilters, SimpleVectorStore, VectorStore, as_filters
from ..types import Document, Node, ScoredNode
from .docstore import DocInfo, DocStore, utc_now
from .refresh import RefreshReport, check_documents, check_nodes, check_vectors, plan_refresh
from .folder import (
    atomic_folder,
    build_splitter,
    index_manifest,
    index_stats,
    open_index_folder,
    splitter_spec,
    write_manifest,
)
from .keyword import KeywordIndex

if TYPE_CHECKING:
    from ..chat import ChatEngine, ChatMode
    from ..llms.base import LLM
    from ..postprocess import NodePostprocessor
    from ..query import QueryEngine
    from ..synthesis import ResponseMode
    from ..tools import Tool
    from ..stores.base import QueryMode

__all__ = ["RefreshReport", "VectorStoreIndex"]  # RefreshReport lives in index_refresh

log = logging.getLogger(__name__)


class VectorStoreIndex:
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
        if store is not None and not isinstance(store, VectorStore):
            raise ConfigError(f"store must implement the VectorStore protocol, got {store!r}")
        if embedder is not None and not isinstance(embedder, Embedder):
            raise ConfigError(f"embedder must implement the Embedder protocol, got {embedder!r}")
        self._store: VectorStore = store if store is not None else SimpleVectorStore()
        self._embedder = embedder
        self._expected_model: str | None = None  # the model an index on disk was built with
        self._expected_window: int | None = None  # and that model's input window
        self._splitter = splitter
        self._splitter_spec: dict[str, Any] | None = None
        self._window_checked = False
        self._docstore = DocStore()
        self._lock = threading.RLock()
        self._created = self._updated = utc_now()
        self._path: Path | None = None
        self._version = 0  # bumped on every change; derived caches compare it
        self._keywords: KeywordIndex | None = None  # BM25 postings, built on first keyword query
        if nodes:
            self.insert_nodes(nodes, progress=progress)

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

    def __len__(self) -> int:
        return len(self._docstore)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._docstore

    def __repr__(self) -> str:
        return f"VectorStoreIndex(documents={self._docstore.doc_count()}, nodes={len(self)})"

    # -- collaborators -----------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """The embedder; the packaged default is resolved here on first use (not at load)."""
        if self._embedder is None:
            from ..embeddings import default_embedder

            embedder = default_embedder()
            self._check_embedder(embedder)
            self._embedder = embedder
        return self._embedder

    @property
    def embed_model_name(self) -> str:
        if self._embedder is not None:
            return self._embedder.model_name
        return self._expected_model or self.embedder.model_name

    @property
    def store(self) -> VectorStore:
        return self._store

    @property
    def splitter(self) -> Any:
        """The splitter; after load it is rebuilt from the manifest's settings on first use."""
        if self._splitter is None:
            self._splitter = build_splitter(self._splitter_spec)
        return self._splitter

    @property
    def path(self) -> Path | None:
        """The folder this index was last loaded from or persisted to."""
        return self._path

    def _check_embedder(self, embedder: Embedder) -> None:
        if self._expected_model and embedder.model_name != self._expected_model:
            raise EmbeddingError(
                f"this index was built with the embedding model {self._expected_model!r}, not "
                f"{embedder.model_name!r}: queries would be compared with vectors of another "
                f"model. Load it with an embedder for {self._expected_model!r}, or rebuild it"
            )

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
        with self._lock:
            old = self._docstore.remove_nodes(n.node_id for n in nodes)
            self._store.delete(old)
            self._add(nodes, vectors)

    def upsert_documents(
        self, documents: Sequence[Document], nodes: Sequence[Node], vectors: np.ndarray
    ) -> None:
        """Add or replace documents with nodes already split and embedded (ingestion uses it)."""
        nodes = list(nodes)
        check_nodes(nodes, doc_ids={d.doc_id for d in documents})
        vectors = np.asarray(vectors)
        check_vectors(nodes, vectors)
        self._replace(list(documents), nodes, vectors)

    def delete_ref_doc(self, doc_id: str) -> bool:
        """Remove a document and its nodes; False if it was not indexed."""
        with self._lock:
            if not self._docstore.has_doc(doc_id):
                return False
            self._store.delete(self._docstore.remove_doc(doc_id))
            self._touch()
            return True

    def delete_nodes(self, node_ids: Iterable[str]) -> int:
        """Remove nodes by id (their documents stay); returns how many were removed."""
        with self._lock:
            removed = self._docstore.remove_nodes(node_ids)
            self._store.delete(removed)
            self._touch()
            return len(removed)

    def _upsert_documents(
        self, documents: Iterable[Document], *, force: bool, progress: Progress | None
    ) -> RefreshReport:
        documents = check_documents(documents)
        with self._lock:
            report, todo = plan_refresh(documents, self._docstore, force=force)
        # Split and embed outside the lock: searches keep running while documents are ingested.
        nodes = self._split(todo)
        self._replace(todo, nodes, self._embed(nodes, progress))
        return report

    def _replace(
        self, documents: Sequence[Document], nodes: list[Node], vectors: np.ndarray
    ) -> None:
        if not documents:
            return
        with self._lock:
            old = chain.from_iterable(self._docstore.remove_doc(d.doc_id) for d in documents)
            self._store.delete(list(old))
            now = utc_now()
            for doc in documents:
                info = DocInfo(doc.doc_id, doc.hash, dict(doc.metadata), [], len(doc.text), now)
                self._docstore.add_doc(info)
            self._add(nodes, vectors)

    def _add(self, nodes: list[Node], vectors: np.ndarray) -> None:
        self._docstore.add_nodes(nodes)
        if nodes:
            self._store.add([n.node_id for n in nodes], vectors, [n.metadata for n in nodes])
        self._touch()

    def _touch(self) -> None:
        self._updated = utc_now()
        self._version += 1

    def _split(self, documents: Sequence[Document]) -> list[Node]:
        if not documents:
            return []
        splitter = self.splitter
        if not self._window_checked:
            self._window_checked = True
            log_chunk_truncation(splitter, self.embedder)
        nodes = list(splitter.get_nodes_from_documents(list(documents)))
        check_nodes(nodes, doc_ids={d.doc_id for d in documents})
        return nodes

    def _embed(self, nodes: Sequence[Node], progress: Progress | None) -> np.ndarray:
        if not nodes:
            return np.zeros((0, getattr(self._store, "dim", None) or 0), dtype=np.float32)
        return embed_nodes(self.embedder, nodes, progress=progress)

    # -- reading -----------------------------------------------------------------------------

    def ref_doc_ids(self) -> list[str]:
        return self._docstore.doc_ids()

    def doc_info(self, doc_id: str) -> DocInfo | None:
        """Hash, metadata, node ids, size and indexing date of one document (None if absent)."""
        return self._docstore.doc(doc_id)

    def get_node(self, node_id: str) -> Node:
        """A node by id (raises StoreError if it is not in the index)."""
        with self._lock:
            return self._docstore.get(node_id)

    def get_nodes(self, node_ids: Iterable[str]) -> list[Node]:
        with self._lock:
            return [self._docstore.get(i) for i in node_ids]

    def nodes_for_doc(self, doc_id: str) -> list[Node]:
        """A document's nodes in document order (empty if the document is not indexed)."""
        return self.get_nodes(self._docstore.doc_node_ids(doc_id))

    def all_nodes(self) -> Iterator[Node]:
        """Every node, document by document (decoded lazily as the iterator advances)."""
        return self._docstore.iter_nodes()

    def node_ids(self) -> list[str]:
        """Node ids aligned with the rows of ``vectors()``."""
        ids = getattr(self._store, "ids", None)
        return ids() if callable(ids) else self._docstore.node_ids()

    def vectors(self) -> np.ndarray:
        vectors = getattr(self._store, "vectors", None)
        if not callable(vectors):
            raise StoreError(f"{type(self._store).__name__} does not expose its vectors")
        return vectors()

    def search(
        self,
        vector: np.ndarray,
        *,
        top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        mode: QueryMode = "similarity",
        mmr_threshold: float = 0.5,
    ) -> list[ScoredNode]:
        """Nodes nearest to ``vector``, best first, optionally limited to some documents."""
        with self._lock:
            hits = self._store.query(
                vector,
                top_k=top_k,
                filters=filters,
                node_ids=self._doc_node_ids(doc_ids),
                mode=mode,
                mmr_threshold=mmr_threshold,
            )
            return [ScoredNode(self._docstore.get(i), score) for i, score in hits]

    def keyword_search(
        self, query: str, *, top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
    ) -> list[ScoredNode]:
        """Nodes whose words best match ``query`` (BM25 scores), best first; like ``search``."""
        with self._lock:
            hits = self.keyword_index().search(
                query, top_k=top_k, filters=as_filters(filters),
                node_ids=self._doc_node_ids(doc_ids),
            )
            return [ScoredNode(self._docstore.get(i), score) for i, score in hits]

    def _doc_node_ids(self, doc_ids: Sequence[str] | None) -> list[str] | None:
        if doc_ids is None:
            return None
        return [i for d in doc_ids for i in self._docstore.doc_node_ids(d)]

    def keyword_index(self) -> KeywordIndex:
        """BM25 postings over the nodes, built on first use (never at load) and after changes."""
        with self._lock:
            if self._keywords is None or self._keywords.version != self._version:
                self._keywords = KeywordIndex.build(self.all_nodes(), version=self._version)
            return self._keywords

    def as_retriever(
        self,
        *,
        similarity_top_k: int = 4,
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        mode: RetrievalMode = "similarity",
        mmr_threshold: float = 0.5,
    ) -> Retriever:
        """A retriever: "similarity" or "mmr" (vector store), "keyword" (BM25) or "hybrid"."""
        return make_retriever(
            self, mode=mode, similarity_top_k=similarity_top_k, filters=filters, doc_ids=doc_ids,
            mmr_threshold=mmr_threshold,
        )

    def as_query_engine(
        self,
        *,
        llm: LLM,
        response_mode: ResponseMode | str = "compact",
        similarity_top_k: int = 4,
        node_postprocessors: Sequence[NodePostprocessor] = (),
        filters: MetadataFilters | dict[str, Any] | None = None,
        doc_ids: Sequence[str] | None = None,
        max_concurrency: int = 4,
        retrieval_mode: RetrievalMode = "similarity",
    ) -> QueryEngine:
        """Retrieve -> postprocess -> synthesize over this index (``index.engines``)."""
        from .engines import query_engine_from_index  # engines import chat and agents: lazily

        return query_engine_from_index(
            self, llm=llm, response_mode=response_mode, similarity_top_k=similarity_top_k,
            node_postprocessors=node_postprocessors, filters=filters, doc_ids=doc_ids,
            max_concurrency=max_concurrency, retrieval_mode=retrieval_mode,
        )

    def as_chat_engine(
        self,
        *,
        chat_mode: ChatMode | str = "best",
        llm: LLM,
        similarity_top_k: int = 4,
        response_mode: ResponseMode | str = "compact",
        node_postprocessors: Sequence[NodePostprocessor] = (),
        system_prompt: str | None = None,
        tools: Sequence[Tool] = (),
        retrieval_mode: RetrievalMode = "similarity",
    ) -> ChatEngine:
        """A chat engine (or agent) of ``chat_mode`` over this index (``index.engines``)."""
        from .engines import chat_engine_from_index

        return chat_engine_from_index(
            self, chat_mode=chat_mode, llm=llm, similarity_top_k=similarity_top_k,
            response_mode=response_mode, node_postprocessors=node_postprocessors,
            system_prompt=system_prompt, tools=tools, retrieval_mode=retrieval_mode,
        )

    def stats(self) -> dict[str, Any]:
        """Counts, model, dates and size on disk (tokens are None: counting needs the tokenizer)."""
        return index_stats(
            self._docstore, self._store, model=self.embed_model_name,
            created=self._created, updated=self._updated, path=self._path,
        )

    # -- disk --------------------------------------------------------------------------------

    def persist(self, path: str | Path) -> None:
        """Write the index to a folder, atomically replacing any index already there."""
        path = Path(path)
        with self._lock:
            with atomic_folder(path) as tmp:
                self._docstore.persist(tmp)
                self._store.persist(tmp)
                write_manifest(tmp, self._manifest())
            self._path = path

    def _manifest(self) -> dict[str, Any]:
        window = self._embedder.max_input_tokens if self._embedder else self._expected_window
        return index_manifest(
            model=self.embed_model_name,
            max_input_tokens=window,
            store=self._store,
            splitter=splitter_spec(self._splitter) or self._splitter_spec,
            docstore=self._docstore,
            created=self._created,
            updated=self._updated,
        )

    @classmethod
    def load(
        cls, path: str | Path, *, embedder: Embedder | None = None, splitter: Any = None
    ) -> VectorStoreIndex:
        """Open a persisted index; loads neither the embedding model nor the tokenizer."""
        folder = open_index_folder(Path(path))
        index = cls(store=folder.store, splitter=splitter)
        index._docstore = folder.docstore
        index._expected_model = folder.model
        index._expected_window = folder.model_window
        if embedder is not None:
            index._check_embedder(embedder)
            index._embedder = embedder
        index._splitter_spec = folder.manifest.get("splitter")
        index._created = str(folder.manifest.get("created") or index._created)
        index._updated = str(folder.manifest.get("updated") or index._updated)
        index._path = Path(path)
        return index


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
