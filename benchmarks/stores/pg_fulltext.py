"""Postgres full text beside BM25 from postings, on a PgIndex that ``bench_pg_index`` loaded.

Issue 35 offered two ways for an index in Postgres to search by keyword: BM25 from postings
tables (what ``PgIndex.keyword_search`` does, ``ragcore/index/database/keyword_sql.py``) or
Postgres full text. This module measures the second against the first on the same nodes and
questions, in the same run, and both against the embedded index's BM25 as the reference.

The full-text side is built here only: a table ``rc_<uid>_fts (node_id, fts, length)`` holding
``to_tsvector('english', ...)`` of each node's embed-mode content (the text BM25 indexes) and
its length in lexemes, with a GIN index. A side table, not a column on the nodes table: an
UPDATE of every node row would re-insert each one into the HNSW graph (rows of ~3 kB are not
updated in place) and leave the vector side on a bloated table. A column written at insert is
what a real design would keep; its query plan is this one's (GIN bitmap scan, then the
matching tsvectors read and ranked), on a wider heap.

A question becomes ``plainto_tsquery('english', q)`` with its ANDs turned into ORs, since BM25
ranks every node sharing any term with the question (the fair comparison), ranked by
``ts_rank_cd(fts, q, 32)``, and for reference by ``ts_rank(fts, q, 1|32)``; the AND form
(``websearch_to_tsquery``), which a search box would use, is measured too. Last, the issue's
"full text with a BM25-faithful ranking": the OR query's matches scored by Okapi BM25 in SQL from
their tsvectors (``bm25_over_tsvector``). The postings side is
``keyword_sql.bm25_hits``, the query ``PgIndex.keyword_search`` runs; every side returns node ids
only (fetching the k nodes costs them all the same). Everything is top-10; top-5 is its
prefix (both orders break ties by node id).
"""

from __future__ import annotations

import statistics
import time
from typing import Any, Callable

from psycopg import sql

from benchmarks.harness import Row
from benchmarks.stores.pg_sides import GROUP, interleaved, p
from ragcore.types import MetadataMode, Node

TOP = 10
_BATCH = 10_000
_OR = "replace(plainto_tsquery('english', %s)::text, ' & ', ' | ')::tsquery"
_AND = "websearch_to_tsquery('english', %s)"
# label -> (tsquery expression, rank expression over fts and q)
FORMS = {
    "FTS OR, ts_rank_cd 32": (_OR, "ts_rank_cd(fts, q, 32)"),
    "FTS OR, ts_rank 1|32": (_OR, "ts_rank(fts, q, 1|32)"),
    "FTS AND, ts_rank_cd 32": (_AND, "ts_rank_cd(fts, q, 32)"),
}


def build_fulltext(conn: Any, table: sql.Identifier, nodes: list[Node]) -> float:
    """The tsvector of every node's embed-mode content, then its GIN index; seconds."""
    started = time.perf_counter()
    conn.execute(sql.SQL("CREATE TABLE {} (node_id text PRIMARY KEY, fts tsvector NOT NULL, "
                         "length int NOT NULL)").format(table))
    # length: the lexemes kept, repeats counted (stop words dropped), as BM25 counts terms
    insert = sql.SQL(
        "INSERT INTO {} SELECT id, v, (SELECT coalesce(sum(array_length(positions, 1)), 0) "
        "FROM unnest(v)) FROM (SELECT id, to_tsvector('english', t) AS v "
        "FROM unnest(%s::text[], %s::text[]) AS x(id, t)) y").format(table)
    for at in range(0, len(nodes), _BATCH):
        batch = nodes[at:at + _BATCH]
        conn.execute(insert, [[n.node_id for n in batch],
                              [n.content(MetadataMode.EMBED) for n in batch]])
    conn.execute(sql.SQL("CREATE INDEX ON {} USING gin (fts)").format(table))
    conn.execute(sql.SQL("ANALYZE {}").format(table))
    return time.perf_counter() - started


def fulltext_search(conn: Any, table: sql.Identifier, form: str) -> Callable[[str], list[str]]:
    """The top-``TOP`` node ids of a question by one of ``FORMS``."""
    query, rank = FORMS[form]
    statement = sql.SQL(
        "SELECT node_id FROM {}, (SELECT " + query + " AS q) s WHERE fts @@ q "
        "ORDER BY " + rank + " DESC, node_id LIMIT %s").format(table)
    return lambda q: [r[0] for r in conn.execute(statement, [q, TOP])]


def bm25_over_tsvector(conn: Any, table: sql.Identifier, *, nodes: int,
                       average: float) -> Callable[[str], list[str]]:
    """Okapi BM25 (``ragcore.search.bm25``'s idf, k1 and b) computed from the tsvectors: each
    query lexeme's document frequency counted through the GIN index, tf from its positions."""
    from ragcore.search.bm25 import B, K1

    statement = sql.SQL(
        "WITH w AS (SELECT t.term, ln(1 + (%s::float8 - c.df + 0.5) / (c.df + 0.5)) AS idf "
        "FROM unnest(tsvector_to_array(to_tsvector('english', %s))) AS t(term) CROSS JOIN "
        "LATERAL (SELECT count(*) AS df FROM {t} WHERE fts @@ quote_literal(t.term)::tsquery) c)"
        " SELECT f.node_id, sum(w.idf * u.tf * %s / (u.tf + %s * (1 - %s + %s * f.length / %s)))"
        " AS score FROM {t} f CROSS JOIN LATERAL (SELECT lexeme, array_length(positions, 1) AS "
        "tf FROM unnest(f.fts)) u JOIN w ON w.term = u.lexeme WHERE f.fts @@ (SELECT "
        "string_agg(quote_literal(term), ' | ')::tsquery FROM w) GROUP BY f.node_id "
        "ORDER BY score DESC, f.node_id LIMIT %s").format(t=table)
    return lambda q: [r[0] for r in conn.execute(
        statement, [nodes, q, K1 + 1.0, K1, B, B, average, TOP])]


def overlap(a: list[list[str]], b: list[list[str]], k: int) -> float:
    """Mean share of ``b``'s top-``k`` (the reference) found in ``a``'s top-``k``."""
    return statistics.mean(len(set(x[:k]) & set(y[:k])) / len(y[:k]) if y else float(not x)
                           for x, y in zip(a, b))


def fulltext_rows(pg: Any, local: Any, nodes: list[Node], questions: list[str]) -> list[Row]:
    """Build the full-text side on ``pg``'s server, query every side interleaved, drop it."""
    from ragcore.index.database import catalog
    from ragcore.index.database.keyword_sql import bm25_hits
    from ragcore.search.bm25 import B, K1
    from ragcore.stores.postgres.connect import connect

    conn = connect(pg.url)
    table = sql.Identifier(pg.tables.name("fts"))
    try:
        build_s = build_fulltext(conn, table, nodes)
        # both sides with planner statistics, as autovacuum leaves a table that has settled
        conn.execute(sql.SQL("ANALYZE {}").format(pg.tables.postings))
        (fts_bytes,), = conn.execute("SELECT pg_total_relation_size(%s)",
                                     [pg.tables.name("fts")]).fetchall()
        (postings_bytes,), = conn.execute("SELECT pg_total_relation_size(%s)",
                                          [pg.tables.name("postings")]).fetchall()
        entry = catalog.entry(conn, pg.name)
        sides = {
            "embedded BM25": lambda q: [h.node.node_id for h in local.keyword_search(q, top_k=TOP)],
            "postings BM25": lambda q: [i for i, _ in bm25_hits(
                conn, pg.tables, q, top_k=TOP, k1=K1, b=B, nodes=entry.nodes,
                total_length=entry.total_length)],
        }
        sides |= {form: fulltext_search(conn, table, form) for form in FORMS}
        (average,), = conn.execute(sql.SQL("SELECT avg(length)::float8 FROM {}")
                                   .format(table)).fetchall()
        sides["FTS OR, BM25 in SQL"] = bm25_over_tsvector(conn, table, nodes=len(nodes),
                                                          average=average)
        interleaved(sides, questions[:5])  # warm
        got = interleaved(sides, questions)
        matched = [conn.execute(sql.SQL("SELECT count(*) FROM {} WHERE fts @@ " + _OR)
                                .format(table), [q]).fetchone()[0] for q in questions]
    finally:
        conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
        conn.close()
    n, reference = len(nodes), got["embedded BM25"][1]
    out = [Row(GROUP, f"full text: tsvector + GIN build {n:,}", build_s, "s",
               note=f"{n / build_s:,.0f} rows/s; {fts_bytes / n:,.0f} B per chunk "
                    f"(postings {postings_bytes / n:,.0f} B); OR query matches a median "
                    f"{statistics.median(matched):,.0f} chunks")]
    for label, (seconds, ids) in got.items():
        same = sum(x[:5] == y[:5] for x, y in zip(ids, reference)) / len(ids)
        short = [sum(len(x) < k for x in ids) / len(ids) for k in (5, TOP)]
        out += [
            Row(GROUP, f"keyword top-{TOP} p50 {label} {n:,}", p(seconds, .5), "ms",
                note=f"p90 {p(seconds, .9):.1f} ms"),
            Row(GROUP, f"{label}: top-5 identical to embedded BM25", same, "",
                note=f"overlap@5 {overlap(ids, reference, 5):.3f}, overlap@10 "
                     f"{overlap(ids, reference, TOP):.3f}; fewer than 5 hits {short[0]:.2f}, "
                     f"fewer than 10 {short[1]:.2f}"),
        ]
    return out
