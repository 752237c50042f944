"""PGVectorStore: the VectorStore protocol over one Postgres table with pgvector.

``PGVectorStore("postgresql://USER@HOST:PORT/DB", table="ragcore_notes")`` keeps one row per
node: ``id`` (primary key), ``doc_id`` (indexed, for deleting a document), ``embedding``
(``vector(dim)``, the table is made on the first add once the dimension is known) and
``metadata`` (JSONB, filtered by ``ragcore.stores.postgres.filters`` with bound parameters only).
Table names are identifiers composed with ``psycopg.sql.Identifier``, never pasted into text.

Search uses an HNSW index (made after the first load, so a bulk load is not slowed by it) with
``hnsw.ef_search`` raised to ``EF_SEARCH``. An approximate index can return fewer rows than
asked when a filter is selective (the graph walk meets too few matching rows); whenever a
filtered or id-restricted search comes back short, it is run again as an exact scan, so a search
returns ``top_k`` rows whenever that many rows match. Rows are written through ``COPY`` into a
temporary table and upserted in one transaction: a failed batch changes nothing.

The password is never part of ``describe()``: see ``ragcore.stores.postgres.connect``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
from psycopg import sql
from psycopg.types.json import Jsonb

from ...errors import ConfigError, StoreError
from ..base import METRICS, StoreSpec
from ..filters import MetadataFilters, as_filters
from .connect import clean_url, connect, remember_password
from .filters import filters_sql
from ..store_rows import check_rows, check_top_k, ordered_vectors

EF_SEARCH = 200  # pgvector's default 40 lost a quarter of the filtered results at 100k rows
BATCH = 5000
# metric -> (distance operator, HNSW operator class, score from distance)
_METRICS = {
    "cosine": ("<=>", "vector_cosine_ops", lambda d: 1.0 - d),
    "dot": ("<#>", "vector_ip_ops", lambda d: -d),
    "euclidean": ("<->", "vector_l2_ops", lambda d: -d),
}


class PGVectorStore:
    """Rows in the Postgres table ``table`` of the database at ``url``."""

    def __init__(self, url: str, *, table: str, metric: str = "cosine") -> None:
        if metric not in METRICS:
            raise ConfigError(f"metric {metric!r} is not one of {', '.join(METRICS)}")
        self.url = remember_password(url)
        self.table = table
        self._metric = metric
        self._name = sql.Identifier(table)
        self._lock = threading.RLock()
        self._hidden: set[str] = set()  # orphan rows left out of searches (see consistency)
        self._conn = connect(url)
        self._dim = self._table_dim()

    # -- shape -------------------------------------------------------------------------------

    def _table_dim(self) -> int | None:
        row = self._conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(%s) "
            "AND attname = 'embedding'", [sql.Identifier(self.table).as_string(self._conn)]
        ).fetchone()
        return None if row is None else int(row[0])

    @property
    def dim(self) -> int | None:
        return self._dim

    @property
    def metric(self) -> str:
        return self._metric

    def __len__(self) -> int:
        if self._dim is None:
            return 0
        with self._lock:
            return int(self._run(sql.SQL("SELECT count(*) FROM {}").format(self._name))[0][0])

    def __repr__(self) -> str:
        return f"PGVectorStore({self.table!r} at {self.url}, {self._metric})"

    def _run(self, query: sql.Composable, params: Sequence[Any] = ()) -> list[tuple]:
        try:
            cursor = self._conn.execute(query, params)
            return cursor.fetchall() if cursor.description is not None else []
        except Exception as exc:
            raise StoreError(f"Postgres table {self.table!r} at {self.url}: {exc}") from exc

    def _create(self, dim: int) -> None:
        self._run(sql.SQL(
            "CREATE TABLE IF NOT EXISTS {} (id text PRIMARY KEY, doc_id text, "
            "embedding vector({}) NOT NULL, metadata jsonb NOT NULL DEFAULT '{{}}')"
        ).format(self._name, sql.Literal(int(dim))))
        self._run(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} (doc_id)").format(
            sql.Identifier(self.table + "_doc"), self._name))
        self._dim = dim

    def _ensure_hnsw(self) -> None:
        _, opclass, _ = _METRICS[self._metric]
        with self._conn.transaction():
            self._run(sql.SQL("SET LOCAL maintenance_work_mem = '512MB'"))
            self._run(sql.SQL("CREATE INDEX IF NOT EXISTS {} ON {} USING hnsw (embedding {})")
                      .format(sql.Identifier(self.table + "_hnsw"), self._name,
                              sql.SQL(opclass)))

    # -- changes -----------------------------------------------------------------------------

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadata: Sequence[dict] | None = None,
            *, doc_ids: Sequence[str | None] | None = None) -> None:
        ids, vectors, metadata, doc_ids = check_rows(ids, vectors, metadata, doc_ids, self._dim)
        if not ids:
            return
        with self._lock:
            if self._dim is None:
                self._create(vectors.shape[1])
            with self._conn.transaction():
                self._run(sql.SQL("CREATE TEMP TABLE IF NOT EXISTS rc_load (id text, doc_id "
                                  "text, embedding vector, metadata jsonb) ON COMMIT DELETE ROWS"))
                with self._conn.cursor() as cur:
                    with cur.copy("COPY rc_load FROM STDIN WITH (FORMAT BINARY)") as copy:
                        copy.set_types(["text", "text", "vector", "jsonb"])
                        for row in zip(ids, doc_ids, vectors, metadata):
                            copy.write_row((row[0], row[1], row[2], Jsonb(row[3])))
                self._run(sql.SQL(
                    "INSERT INTO {} SELECT id, doc_id, embedding, metadata FROM rc_load "
                    "ON CONFLICT (id) DO UPDATE SET doc_id = EXCLUDED.doc_id, "
                    "embedding = EXCLUDED.embedding, metadata = EXCLUDED.metadata"
                ).format(self._name))
            self._ensure_hnsw()

    def delete(self, ids: Sequence[str]) -> int:
        ids = [str(i) for i in ids]
        if self._dim is None or not ids:
            return 0
        self._hidden.difference_update(ids)
        with self._lock:
            removed = 0
            for start in range(0, len(ids), BATCH):
                removed += len(self._run(sql.SQL(
                    "DELETE FROM {} WHERE id = ANY(%s) RETURNING 1").format(self._name),
                    [ids[start : start + BATCH]]))
            return removed

    def delete_ref_doc(self, doc_id: str) -> int:
        if self._dim is None:
            return 0
        with self._lock:
            return len(self._run(sql.SQL("DELETE FROM {} WHERE doc_id = %s RETURNING 1")
                                 .format(self._name), [doc_id]))

    def ids(self) -> list[str]:
        """Every node id in the table (for checking it against an index's docstore)."""
        if self._dim is None:
            return []
        with self._lock:
            return [r[0] for r in self._run(sql.SQL("SELECT id FROM {}").format(self._name))]

    def hide(self, ids: Iterable[str]) -> None:
        """Leave these rows out of this object's searches (rows no index node names)."""
        self._hidden.update(ids)

    # -- reading -----------------------------------------------------------------------------

    def query(self, vector: np.ndarray, *, top_k: int, filters: MetadataFilters | None = None,
              node_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        check_top_k(top_k)
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        if self._dim is None:
            return []
        if query.shape[0] != self._dim:
            raise StoreError(f"query vector has dimension {query.shape[0]}, the Postgres table "
                             f"{self.table!r} holds dimension {self._dim}")
        if node_ids is not None and not node_ids:
            return []
        where, params = filters_sql(as_filters(filters))
        if node_ids is not None:
            where = sql.SQL("{} AND id = ANY(%s)").format(where)
            params = [*params, list(dict.fromkeys(str(i) for i in node_ids))]
        operator, _, score = _METRICS[self._metric]
        statement = sql.SQL("SELECT id, embedding {} %s AS distance FROM {} WHERE {} "
                            "ORDER BY embedding {} %s LIMIT %s").format(
            sql.SQL(operator), self._name, where, sql.SQL(operator))
        values = [query, *params, query, int(top_k) + len(self._hidden)]
        restricted = filters is not None or node_ids is not None
        with self._lock:
            rows = self._search(statement, values, exact=False)
            if restricted and len(rows) < top_k + len(self._hidden):
                rows = self._search(statement, values, exact=True)
        hits = [(r[0], float(score(r[1]))) for r in rows if r[0] not in self._hidden]
        return hits[:top_k]

    def _search(self, statement: sql.Composable, values: list[Any], *, exact: bool) -> list:
        with self._conn.transaction():
            self._run(sql.SQL("SET LOCAL hnsw.ef_search = {}").format(sql.Literal(EF_SEARCH)))
            if exact:
                self._run(sql.SQL("SET LOCAL enable_indexscan = off"))
            return self._run(statement, values)

    def get_vectors(self, ids: Sequence[str]) -> np.ndarray:
        ids = [str(i) for i in ids]
        found: dict[str, Any] = {}
        if self._dim is not None:
            with self._lock:
                for start in range(0, len(ids), BATCH):
                    found.update(self._run(sql.SQL(
                        "SELECT id, embedding FROM {} WHERE id = ANY(%s)").format(self._name),
                        [ids[start : start + BATCH]]))
        return ordered_vectors(ids, found, self._dim, f"the Postgres table {self.table!r}")

    def describe(self) -> StoreSpec:
        return StoreSpec("PGVectorStore",
                         {"url": clean_url(self.url), "table": self.table, "metric": self._metric})

    def persist(self, folder: Path) -> None:
        """Nothing to write: every change is already committed in Postgres."""

    def drop(self) -> None:
        """Drop the whole table (when its index is deleted)."""
        with self._lock:
            self._run(sql.SQL("DROP TABLE IF EXISTS {}").format(self._name))
            self._dim = None

    def close(self) -> None:
        self._conn.close()


def open_pg_store(folder: Path, settings: dict[str, Any]) -> PGVectorStore:
    """The opener ``ragcore.stores.registry`` calls with a manifest's settings."""
    return PGVectorStore(str(settings["url"]), table=str(settings["table"]),
                         metric=str(settings.get("metric", "cosine")))
