"""Okapi BM25 from postings tables: the embedded keyword index's scores, computed by Postgres.

A node's postings are rows ``(term, node_id, tf, length)``: its terms by
``ragcore.search.analysis`` (the analyzer of the embedded index) over its embed-mode content,
with its length in terms kept on every row so a query needs no join unless it filters. A query
reads each distinct query term's document frequency (one grouped count over the term index),
turns it into ``ragcore.search.bm25.idf`` with the live node count from the catalog, and lets
Postgres sum ``idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / avg))`` per node: the
same formula, the same statistics (all live nodes; filters only narrow the candidates), so the
top-k equals the embedded index's on the same nodes (ties aside: scores here are float64).

Postgres full text was the other way the issue offered; measured on the same 100k chunks and
questions (``benchmarks/stores/pg_fulltext.py``, docs/scale.md): ``ts_rank_cd`` shares 8 % of the
embedded index's top-5, ``ts_rank`` 62 %, and BM25 computed from the tsvectors 89 % (identical
lists 26 %: Postgres splits words its own way, hyphens and numbers apart) at 4.7x the postings'
time; postings keep one meaning of "keyword search" across both homes of an index.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from psycopg import sql

from ...search.analysis import terms
from ...search.bm25 import idf
from ...types import MetadataMode, Node
from .catalog import Tables


@dataclass(slots=True)
class KeywordStats:
    """What the retrievers' trace shows of keyword search (``keyword_index()``)."""

    nodes: int
    searches: int = 1  # postings in a database are never "built on first use"

    def __len__(self) -> int:
        return self.nodes


def node_postings(node: Node) -> tuple[int, list[tuple[str, int]]]:
    """A node's length in terms and its (term, frequency) pairs."""
    counts = Counter(terms(node.content(MetadataMode.EMBED)))
    return sum(counts.values()), sorted(counts.items())


def bm25_hits(conn: Any, tables: Tables, query: str, *, top_k: int, k1: float, b: float,
              nodes: int, total_length: int, where: sql.Composable | None = None,
              params: Sequence[Any] = ()) -> list[tuple[str, float]]:
    """(node id, BM25 score) of the ``top_k`` best nodes sharing a word with ``query``, best
    first; ``where`` (over the nodes table's columns) narrows the candidates."""
    wanted = sorted(set(terms(query)))
    if not wanted or nodes <= 0:
        return []
    found = conn.execute(sql.SQL(
        "SELECT term, count(*) FROM {} WHERE term = ANY(%s) GROUP BY term"
    ).format(tables.postings), [wanted]).fetchall()
    if not found:
        return []
    weights = [(t, idf(nodes, int(df))) for t, df in found]
    avg = total_length / nodes if total_length > 0 else 1.0
    join = sql.SQL("")
    if where is not None:
        join = sql.SQL(" JOIN {} n ON n.node_id = p.node_id WHERE ").format(tables.nodes) + where
    rows = conn.execute(sql.SQL(
        "SELECT p.node_id, sum(w.idf * p.tf * %s / (p.tf + %s * (1 - %s + %s * p.length / %s)))"
        " AS score FROM {} p JOIN unnest(%s::text[], %s::float8[]) AS w(term, idf) "
        "ON p.term = w.term{} GROUP BY p.node_id ORDER BY score DESC, p.node_id LIMIT %s"
    ).format(tables.postings, join), [
        k1 + 1.0, k1, b, b, avg, [t for t, _ in weights], [w for _, w in weights],
        *params, top_k,
    ]).fetchall()
    return [(node_id, float(score)) for node_id, score in rows]
