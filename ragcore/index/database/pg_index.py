"""PgIndex: an index that lives wholly in Postgres (nodes, documents, vectors, postings, history).

It offers what the retrievers, engines and ingestion use of ``VectorStoreIndex`` over the
tables ``catalog`` names. Nothing is held in memory between calls, so every query sees what any
process committed last: an app server answers with what a worker committed a moment ago.

**Writes are one transaction per commit** (``writer``); the writer's own reads see them, nobody
else's until ``commit()`` makes them the next generation; with a task key (``claim``,
``commit(task=...)``) a batch is committed once, however many workers did it.

**Reads see one generation.** ``reading()`` holds one repeatable-read snapshot for its block:
the two sides of a hybrid search and the nodes they return agree. Reads of one ``PgIndex`` take
turns on its connection (reconnected after a server restart); the SQL is in ``vector_sql`` and
``keyword_sql``.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
from psycopg import sql

from ...chunking import SentenceSplitter
from ...embeddings.base import Embedder, Progress, embed_nodes
from ...errors import StoreError
from ...search.bm25 import B, K1
from ...stores import MetadataFilters, as_filters
from ...stores.postgres.connect import clean_url, connect, remember_password
from ...types import Document, Node, ScoredNode
from ..doc_entries import DocInfo
from ..engine_methods import EngineMethods
from ..refresh import (KnownHashes, RefreshReport, check_documents, check_nodes,
                       check_vectors, plan_refresh)
from ..split_embed import check_embedder, split_documents
from . import catalog
from .catalog import Tables
from .keyword_sql import KeywordStats, bm25_hits
from .vector_sql import EF_SEARCH, EXACT_BELOW, as_array, dimension, nearest, where_clause
from .writer import Writer


_DOC_INFO = "SELECT doc_id, hash, metadata, node_ids, characters, indexed_at FROM {}"


@dataclass(frozen=True, slots=True)
class VectorsView:
    """What a retriever reads of the vector side (``store.metric``, ``store.dim``)."""

    dim: int | None
    metric: str = "cosine"


class PgIndex(EngineMethods):
    """The index named ``name`` in the Postgres database at ``url``."""

    def __init__(self, url: str, name: str, *, embedder: Embedder | None = None,
                 splitter: Any = None) -> None:
        self.url = remember_password(url)
        self.name = name
        self._lock = threading.RLock()
        self._conn = self._connect()
        found = catalog.entry(self._conn, name)
        if found is None:
            self._conn.close()
            raise StoreError(f"no index named {name!r} in the database at {clean_url(url)}")
        self.uid, self.model, self.dim = found.uid, found.model, found.dim
        self.tables = Tables(found.uid)
        self._embedder = None if embedder is None else check_embedder(embedder, self.model)
        self._splitter = splitter
        self._writer: Writer | None = None  # the open write transaction, if any
        self._write_conn: Any = None  # the connection writes go through, kept between commits

    @classmethod
    def create(cls, url: str, name: str, *, embedder: Embedder, record: dict[str, Any],
               splitter: Any = None) -> PgIndex:
        """A new, empty index ``name`` in the database (StoreError if the name is taken)."""
        conn = connect(url)
        try:
            catalog.register(conn, name, catalog.new_uid(), record, model=embedder.model_name,
                             dim=dimension(embedder))
        finally:
            conn.close()
        return cls(url, name, embedder=embedder, splitter=splitter)

    def close(self) -> None:
        self.rollback()
        for conn in filter(None, (self._conn, self._write_conn)):
            conn.close()

    def __repr__(self) -> str:
        return f"PgIndex({self.name!r} at {clean_url(self.url)})"

    # -- collaborators -----------------------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            from ...embeddings import default_embedder

            self._embedder = check_embedder(default_embedder(self.model), self.model)
        return self._embedder

    @property
    def embed_model_name(self) -> str:
        return self.model or self.embedder.model_name

    @property
    def splitter(self) -> Any:
        if self._splitter is None:
            self._splitter = SentenceSplitter()
        return self._splitter

    @property
    def store(self) -> VectorsView:
        return VectorsView(self.dim)

    path = None  # no folder: the database is where it lives

    # -- reading -----------------------------------------------------------------------------

    def _connect(self) -> Any:
        conn = connect(self.url)
        conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
        return conn

    def _reader(self) -> Any:
        """The connection reads go through (again after the server dropped it)."""
        if self._writer is not None:
            return self._writer.conn
        if self._conn.closed or self._conn.broken:
            self._conn = self._connect()
        return self._conn

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One snapshot for the block: every read inside sees the same generation."""
        with self._lock:
            self._reader()
            if self._writer is not None:
                yield  # the writer's transaction is the snapshot (it sees its own changes)
                return
            if self._conn.info.transaction_status:  # already inside: the outer snapshot holds
                yield
                return
            with self._conn.transaction():
                self._conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield

    def _run(self, query: sql.Composable | str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            try:
                cursor = self._reader().execute(query, params)
            except Exception as exc:
                raise StoreError(f"index {self.name!r} in Postgres: {exc}") from exc
            return cursor.fetchall() if cursor.description is not None else []

    def _entry(self) -> tuple[int, int, int]:
        """(generation, live nodes, their total length): the catalog's, with the open write
        transaction's uncommitted changes counted in."""
        rows = self._run("SELECT generation, nodes, total_length FROM ragcore_indexes WHERE "
                         "uid = %s", [self.uid])
        if not rows:
            raise StoreError(f"index {self.name!r} was deleted from the database")
        generation, nodes, length = (int(v) for v in rows[0])
        if self._writer is not None:
            nodes, length = nodes + self._writer.delta[0], length + self._writer.delta[1]
        return generation, nodes, length

    @property
    def generation(self) -> int:
        """The last committed generation (grows by one with every commit)."""
        return self._entry()[0]

    @property
    def revision(self) -> int:
        """The generation, plus the changes not committed yet (as ``VectorStoreIndex``'s
        revision: equal revisions mean the same content)."""
        with self._lock:
            return self._entry()[0] + (self._writer.changes if self._writer else 0)

    def __len__(self) -> int:
        with self.reading():
            return self._entry()[1]

    def __contains__(self, node_id: object) -> bool:
        return bool(self._run(sql.SQL("SELECT 1 FROM {} WHERE node_id = %s").format(
            self.tables.nodes), [node_id]))

    def ref_doc_ids(self) -> list[str]:
        return [r[0] for r in self._run(sql.SQL("SELECT doc_id FROM {} ORDER BY ord").format(
            self.tables.docs))]

    def doc_info(self, doc_id: str) -> DocInfo | None:
        rows = self._run(sql.SQL(_DOC_INFO + " WHERE doc_id = %s").format(self.tables.docs),
                         [doc_id])
        return DocInfo(*rows[0]) if rows else None

    def doc_infos(self) -> list[DocInfo]:
        """Every document's info, in ``ref_doc_ids`` order (one query)."""
        return [DocInfo(*row) for row in self._run(
            sql.SQL(_DOC_INFO + " ORDER BY ord").format(self.tables.docs))]

    def get_node(self, node_id: str) -> Node:
        return self.get_nodes([node_id])[0]

    def get_nodes(self, node_ids: Iterable[str], *, keep: bool = True) -> list[Node]:
        wanted = list(node_ids)
        rows = dict(self._run(sql.SQL("SELECT node_id, node FROM {} WHERE node_id = ANY(%s)")
                              .format(self.tables.nodes), [wanted]))
        missing = [i for i in wanted if i not in rows]
        if missing:
            raise StoreError(f"no such node in index {self.name!r}: {', '.join(missing[:5])}")
        return [Node.from_dict(rows[i]) for i in wanted]

    def nodes_for_doc(self, doc_id: str) -> list[Node]:
        with self.reading():
            info = self.doc_info(doc_id)
            return self.get_nodes(info.node_ids) if info is not None else []

    def node_ids(self) -> list[str]:
        """Every node id, document by document, then nodes without a document."""
        with self.reading():
            ids = [i for d in self._run(sql.SQL("SELECT node_ids FROM {} ORDER BY ord").format(
                self.tables.docs)) for i in d[0]]
            listed = set(ids)
            rest = self._run(sql.SQL("SELECT node_id FROM {} ORDER BY ord").format(
                self.tables.nodes))
            return ids + [r[0] for r in rest if r[0] not in listed]

    def all_nodes(self) -> Iterator[Node]:
        ids = self.node_ids()
        for start in range(0, len(ids), 1000):
            yield from self.get_nodes(ids[start:start + 1000])

    def get_vectors(self, node_ids: Sequence[str]) -> np.ndarray:
        wanted = list(node_ids)
        rows = dict(self._run(sql.SQL("SELECT node_id, embedding FROM {} WHERE node_id = "
                                      "ANY(%s)").format(self.tables.nodes), [wanted]))
        missing = [i for i in wanted if i not in rows]
        if missing:
            raise StoreError(f"no vector stored for {', '.join(missing[:5])}")
        return np.array([as_array(rows[i]) for i in wanted], dtype=np.float32).reshape(
            len(wanted), -1)

    def search(self, vector: np.ndarray, *, top_k: int = 4,
               filters: MetadataFilters | dict[str, Any] | None = None,
               doc_ids: Sequence[str] | None = None) -> list[ScoredNode]:
        """Nodes nearest to ``vector`` by cosine similarity, best first."""
        where, params = where_clause(as_filters(filters), doc_ids)
        query = np.asarray(vector, dtype=np.float32)
        with self.reading():  # which holds the lock
            exact, conn = self._entry()[1] < EXACT_BELOW, self._reader()
            hits = nearest(conn, self.tables, query, top_k, where, params, exact=exact)
            if len(hits) < top_k and where is not None and not exact:
                hits = nearest(conn, self.tables, query, top_k, where, params, exact=True)
        return [ScoredNode(Node.from_dict(node), score) for node, score in hits]

    def keyword_search(self, query: str, *, top_k: int = 4,
                       filters: MetadataFilters | dict[str, Any] | None = None,
                       doc_ids: Sequence[str] | None = None,
                       k1: float = K1, b: float = B) -> list[ScoredNode]:
        """Nodes whose words best match ``query`` by BM25 (``keyword_sql``), best first."""
        where, params = where_clause(as_filters(filters), doc_ids, prefix="n.")
        with self.reading():  # which holds the lock
            _, nodes, length = self._entry()
            hits = bm25_hits(self._reader(), self.tables, query, top_k=top_k, k1=k1, b=b,
                             nodes=nodes, total_length=length, where=where, params=params)
            found = dict(zip((h[0] for h in hits), self.get_nodes([h[0] for h in hits])))
        return [ScoredNode(found[i], s) for i, s in hits]

    def keyword_index(self) -> KeywordStats:
        return KeywordStats(len(self))

    def stats(self) -> dict[str, Any]:
        """Counts, model, dates and the bytes its tables take (``catalog.stats``)."""
        with self._lock:
            return catalog.stats(self._reader(), self.name, self.tables, clean_url(self.url))

    def history(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest commits, newest first (generation, when, task, what changed)."""
        with self._lock:
            return catalog.history(self._reader(), self.uid, limit=limit)

    # -- changes (into the open write transaction) -------------------------------------------

    def _write_connection(self) -> Any:
        if self._write_conn is None or self._write_conn.closed or self._write_conn.broken:
            self._write_conn = connect(self.url)
            self._write_conn.autocommit = False
        return self._write_conn

    @contextmanager
    def _writing(self) -> Iterator[Writer]:
        """The open write transaction (opened here on the first change); a change that fails
        rolls the whole transaction back: a half-made change is never committed."""
        with self._lock:
            if self._writer is None:
                self._writer = Writer(self._write_connection(), self.tables, name=self.name,
                                      dim=self.dim)
            try:
                yield self._writer
            except Exception:
                self.rollback()
                raise
            self._writer.changes += 1

    def insert(self, document: Document, *, progress: Progress | None = None) -> None:
        self._upsert([document], force=True, progress=progress)

    def refresh_ref_docs(self, documents: Iterable[Document], *,
                         progress: Progress | None = None) -> RefreshReport:
        return self._upsert(documents, force=False, progress=progress)

    def _upsert(self, documents: Iterable[Document], *, force: bool,
                progress: Progress | None) -> RefreshReport:
        documents = check_documents(documents)
        known = dict(self._run(sql.SQL("SELECT doc_id, hash FROM {} WHERE doc_id = ANY(%s)")
                               .format(self.tables.docs), [[d.doc_id for d in documents]]))
        report, todo = plan_refresh(documents, KnownHashes(known), force=force)
        nodes = split_documents(self.splitter, todo)
        vectors = embed_nodes(self.embedder, nodes, progress=progress) if nodes else \
            np.zeros((0, self.dim or 0), np.float32)
        if todo:
            self.upsert_documents(todo, nodes, vectors)
        return report

    def insert_nodes(self, nodes: Sequence[Node], *, vectors: np.ndarray | None = None,
                     progress: Progress | None = None) -> None:
        """Add nodes (embedded here unless ``vectors`` are given); same ids replace."""
        nodes = list(nodes)
        check_nodes(nodes)
        if vectors is None:
            vectors = embed_nodes(self.embedder, nodes, progress=progress)
        vectors = np.asarray(vectors, dtype=np.float32)
        check_vectors(nodes, vectors)
        if nodes:
            with self._writing() as writer:
                writer.add(nodes, vectors)

    def upsert_documents(self, documents: Sequence[Document], nodes: Sequence[Node],
                         vectors: np.ndarray) -> None:
        """Replace ``documents`` (split and embedded already) in the open transaction."""
        nodes = list(nodes)
        check_nodes(nodes, doc_ids={d.doc_id for d in documents})
        vectors = np.asarray(vectors, dtype=np.float32)
        check_vectors(nodes, vectors)
        if documents:
            with self._writing() as writer:
                writer.add_documents(list(documents))
                writer.add(nodes, vectors)

    def set_document_info(self, document: Document) -> None:
        with self._writing() as writer:
            writer.set_info(document)

    def delete_ref_doc(self, doc_id: str) -> bool:
        if self.doc_info(doc_id) is None:
            return False
        with self._writing() as writer:
            writer.remove_documents([doc_id])
        return True

    def delete_nodes(self, node_ids: Iterable[str]) -> int:
        ids = [i for i in dict.fromkeys(node_ids) if i in self]
        if ids:
            with self._writing() as writer:
                writer.remove_nodes(ids)
        return len(ids)

    # -- committing --------------------------------------------------------------------------

    def committed(self, task: str) -> bool:
        """Whether a commit under task key ``task`` landed."""
        return bool(self._run("SELECT 1 FROM ragcore_index_tasks WHERE uid = %s AND task = %s",
                              [self.uid, task]))

    def claim(self, task: str) -> bool:
        """Open the write transaction under task key ``task`` (a worker's batch): False, with
        nothing open, when a commit under it landed already. A second worker doing the same
        batch waits here until the first one commits or dies."""
        with self._lock:
            with self._writing() as writer:
                claimed = writer.claim(task)
            if not claimed:
                self.rollback()
            return claimed

    def commit(self, *, task: str | None = None) -> bool:
        """Commit the open changes as the next generation, in one transaction; with ``task``,
        only if no commit under that key landed before (else the changes are dropped).
        Returns whether a generation was committed."""
        with self._lock:
            if task is not None and not self.claim(task):
                return False
            if self._writer is None:
                return False
            writer, self._writer = self._writer, None
            try:
                writer.commit()
            except Exception:
                writer.rollback()
                raise
            return True

    def persist(self, path: Any = None) -> None:  # ``VectorStoreIndex``'s name: no path used
        self.commit()

    def merge_segments(self, path: Any = None) -> bool:  # Postgres keeps its own files
        return False

    def rollback(self) -> None:
        """Drop the changes not committed."""
        with self._lock:
            writer, self._writer = self._writer, None
            if writer is not None:
                writer.rollback()
