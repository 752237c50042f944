"""Vector search over an index's nodes table, and the WHERE clause both searches share.

Below ``EXACT_BELOW`` live nodes a search scans every vector (exact: the embedded index's
results, and fast at that size); above, it walks the HNSW index with ``hnsw.ef_search`` raised
to ``EF_SEARCH``, and a filtered walk that comes back short is run again as a scan (pgvector's
graph walk meets too few matching rows when a filter is selective; ``PGVectorStore`` does the
same). Scores are cosine similarities; ties go by node id.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
from psycopg import sql

from ...embeddings.base import Embedder
from ...stores import MetadataFilters
from ...stores.postgres.filters import filters_sql
from .catalog import Tables

EXACT_BELOW = 10_000
EF_SEARCH = 200


def where_clause(filters: MetadataFilters | None, doc_ids: Sequence[str] | None,
                 prefix: str = "") -> tuple[sql.Composable | None, list[Any]]:
    """The metadata filters and document restriction as one clause over the nodes table
    (``prefix``: its alias), with its parameters; None when nothing narrows the search."""
    parts: list[sql.Composable] = []
    params: list[Any] = []
    if filters is not None:
        clause, values = filters_sql(filters)
        parts.append(clause)
        params += values
    if doc_ids is not None:
        parts.append(sql.SQL(prefix + "doc_id = ANY(%s)"))
        params.append(list(doc_ids))
    return (sql.SQL(" AND ").join(parts) if parts else None), params


def nearest(conn: Any, tables: Tables, vector: np.ndarray, top_k: int,
            where: sql.Composable | None, params: list[Any], *,
            exact: bool) -> list[tuple[dict, float]]:
    """(node record, cosine similarity) of the ``top_k`` nearest nodes, best first."""
    # HNSW serves an ORDER BY of the distance alone (a second key makes Postgres scan and
    # sort every row): ties are put in node-id order here. "+ 0" orders by an expression the
    # index cannot serve: an exact scan.
    order = sql.SQL("(embedding <=> %s::vector) + 0" if exact else "embedding <=> %s::vector")
    clause = sql.SQL(" WHERE ") + where if where is not None else sql.SQL("")
    rows = conn.execute(sql.SQL(
        "SELECT node, 1 - (embedding <=> %s::vector) FROM {}{} ORDER BY {} LIMIT %s"
    ).format(tables.nodes, clause, order), [vector, *params, vector, top_k]).fetchall()
    ranked = sorted(((float(score), node) for node, score in rows),
                    key=lambda hit: (-hit[0], hit[1]["node_id"]))
    return [(node, score) for score, node in ranked]


def as_array(value: Any) -> np.ndarray:
    """A vector column's value as numpy (pgvector's loaders return a ``Vector`` or an array)."""
    return value.to_numpy() if hasattr(value, "to_numpy") else np.asarray(value)


def dimension(embedder: Embedder) -> int:
    """The embedder's vector size (its ``dim``, else measured on one word)."""
    dim = getattr(embedder, "dim", None)
    return int(dim) if isinstance(dim, int) else int(embedder.embed_batch(["dimension"]).shape[1])
