"""One open write transaction on an index in Postgres: the changes of its next commit.

``PgIndex`` opens a ``Writer`` on its first change and hands it every later one; ``commit``
turns them into the next generation in the same transaction, ``rollback`` drops them. Rows go in
through ``COPY`` (nodes with their vectors in binary, postings as text). A node replaced or a
document removed takes its postings and its place in its document's node list with it.

**Committing.** A task key (``claim``) is recorded first, so a second worker doing the same batch
(it took over a batch whose first worker looked dead but was not) waits on the first one's row
and then learns it is done, instead of writing it twice. Every change keeps what it did to the
live counts BM25 and the listing need (nodes and their total length, documents and their
characters: the lengths of the rows it deleted come back from the DELETE); the commit adds those
deltas to the catalog row in one UPDATE, which waits for a committer before it: the counts stay
exact when workers commit side by side, and a commit costs its batch, not the index (a recount
was a scan of every node under the row lock).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from ...errors import StoreError
from ...types import Document, Node
from ..doc_entries import utc_now
from .catalog import Tables
from .keyword_sql import node_postings


class Writer:
    """Changes to the index of ``tables`` in one transaction not yet committed."""

    def __init__(self, conn: Any, tables: Tables, *, name: str, dim: int | None) -> None:
        self.conn = conn  # not autocommit: its first statement opens the transaction
        self.tables, self.name, self.dim = tables, name, dim
        self.changes = 0  # calls that changed something
        self.counts = [0, 0, 0]  # nodes added, nodes removed, documents replaced or removed
        self.delta = [0, 0, 0, 0]  # live nodes, their total length, documents, characters
        self.task: str | None = None  # the task key claimed, if any

    def execute(self, query: Any, params: Any = ()) -> Any:
        return self.conn.execute(query, params)

    def add_documents(self, documents: list[Document]) -> None:
        """Replace ``documents`` by empty entries (their nodes follow with ``add``)."""
        self.remove_documents([d.doc_id for d in documents])
        now = utc_now()
        with self.conn.cursor().copy(sql.SQL(
                "COPY {} (doc_id, hash, metadata, node_ids, characters, indexed_at) FROM STDIN")
                .format(self.tables.docs)) as copy:
            for doc in documents:
                copy.write_row((doc.doc_id, doc.hash, Jsonb(dict(doc.metadata)), Jsonb([]),
                                len(doc.text), now))
        self.delta[2] += len(documents)
        self.delta[3] += sum(len(d.text) for d in documents)

    def set_info(self, document: Document) -> None:
        docs = self.tables.docs
        old = self.execute(sql.SQL("SELECT characters FROM {} WHERE doc_id = %s FOR UPDATE")
                           .format(docs), [document.doc_id]).fetchone()
        if old is None:
            return
        self.execute(sql.SQL("UPDATE {} SET hash = %s, metadata = %s, characters = %s WHERE "
                             "doc_id = %s").format(docs),
                     [document.hash, Jsonb(dict(document.metadata)), len(document.text),
                      document.doc_id])
        self.delta[3] += len(document.text) - int(old[0])

    def add(self, nodes: list[Node], vectors: np.ndarray) -> None:
        """Add nodes with their vectors and postings (same ids replace), listed under their
        documents."""
        if not nodes:
            return
        if vectors.shape[1] != self.dim:
            raise StoreError(f"vectors of {vectors.shape[1]} dimensions for index {self.name!r}"
                             f" of {self.dim}: embed with the index's model")
        self.remove_nodes([n.node_id for n in nodes])
        self.counts[0] += len(nodes)
        self.delta[0] += len(nodes)
        cursor, postings = self.conn.cursor(), []
        with cursor.copy(sql.SQL("COPY {} (node_id, doc_id, node, metadata, length, embedding) "
                                 "FROM STDIN WITH (FORMAT BINARY)").format(
                                     self.tables.nodes)) as copy:
            copy.set_types(["text", "text", "jsonb", "jsonb", "int4", "vector"])
            for node, vector in zip(nodes, vectors):
                length, counts = node_postings(node)
                postings += [(t, node.node_id, tf, length) for t, tf in counts]
                self.delta[1] += length
                copy.write_row((node.node_id, node.ref_doc_id, Jsonb(node.to_dict()),
                                Jsonb(node.metadata), length, vector))
        with cursor.copy(sql.SQL("COPY {} (term, node_id, tf, length) FROM STDIN").format(
                self.tables.postings)) as copy:
            for row in postings:
                copy.write_row(row)
        by_doc: dict[str, list[str]] = {}
        for node in nodes:
            if node.ref_doc_id is not None:
                by_doc.setdefault(node.ref_doc_id, []).append(node.node_id)
        for doc_id, ids in by_doc.items():
            self.execute(sql.SQL("UPDATE {} SET node_ids = node_ids || %s WHERE doc_id = %s")
                         .format(self.tables.docs), [Jsonb(ids), doc_id])

    def remove_documents(self, doc_ids: list[str]) -> None:
        t = self.tables
        self.counts[2] += len(doc_ids)
        self.execute(sql.SQL("DELETE FROM {} WHERE node_id IN (SELECT node_id FROM {} WHERE "
                             "doc_id = ANY(%s))").format(t.postings, t.nodes), [doc_ids])
        lengths = self.execute(sql.SQL("DELETE FROM {} WHERE doc_id = ANY(%s) RETURNING length")
                               .format(t.nodes), [doc_ids]).fetchall()
        self._removed([length for length, in lengths])
        chars = self.execute(sql.SQL("DELETE FROM {} WHERE doc_id = ANY(%s) RETURNING "
                                     "characters").format(t.docs), [doc_ids]).fetchall()
        self.delta[2] -= len(chars)
        self.delta[3] -= sum(c for c, in chars)

    def remove_nodes(self, node_ids: list[str]) -> None:
        t = self.tables
        self.execute(sql.SQL("DELETE FROM {} WHERE node_id = ANY(%s)").format(t.postings),
                     [node_ids])
        owners = self.execute(sql.SQL("DELETE FROM {} WHERE node_id = ANY(%s) RETURNING doc_id, "
                                      "length").format(t.nodes), [node_ids]).fetchall()
        self._removed([length for _, length in owners])
        docs = sorted({d for d, _ in owners if d is not None})
        if docs:
            self.execute(sql.SQL(
                "UPDATE {} SET node_ids = (SELECT coalesce(jsonb_agg(x ORDER BY o), '[]') FROM "
                "jsonb_array_elements_text(node_ids) WITH ORDINALITY e(x, o) WHERE "
                "x <> ALL(%s)) WHERE doc_id = ANY(%s)").format(t.docs), [node_ids, docs])

    def _removed(self, lengths: list[int]) -> None:
        self.counts[1] += len(lengths)
        self.delta[0] -= len(lengths)
        self.delta[1] -= sum(lengths)

    def claim(self, task: str) -> bool:
        """Record ``task`` as this transaction's; False if a commit under it landed (waits
        while another open transaction holds it)."""
        if self.task == task:
            return True
        claimed = self.execute("INSERT INTO ragcore_index_tasks (uid, task, generation) VALUES "
                               "(%s, %s, -1) ON CONFLICT DO NOTHING",
                               [self.tables.uid, task]).rowcount
        self.task = task if claimed else None
        return bool(claimed)

    def commit(self) -> int:
        """Commit as the next generation (returned), recording it in the history."""
        uid = self.tables.uid
        row = self.execute(
            "UPDATE ragcore_indexes SET generation = generation + 1, nodes = nodes + %s, "
            "total_length = total_length + %s, documents = documents + %s, characters = "
            "characters + %s, updated = now() WHERE uid = %s RETURNING generation",
            [*self.delta, uid]).fetchone()
        if row is None:
            raise StoreError(f"index {self.name!r} was deleted from the database while this "
                             "change ran: nothing was committed")
        generation = int(row[0])
        if self.task is not None:
            self.execute("UPDATE ragcore_index_tasks SET generation = %s WHERE uid = %s AND "
                         "task = %s", [generation, uid, self.task])
        self.execute("INSERT INTO ragcore_index_commits (uid, generation, task, nodes_added, "
                     "nodes_removed, documents_changed) VALUES (%s, %s, %s, %s, %s, %s)",
                     [uid, generation, self.task, *self.counts])
        self.conn.commit()
        return generation

    def rollback(self) -> None:
        try:
            self.conn.rollback()
        except psycopg.Error:  # the connection broke: its transaction ended with it
            self.conn.close()
