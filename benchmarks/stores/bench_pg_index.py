"""PgIndex (an index wholly in Postgres) against the embedded VectorStoreIndex, same data, one run.

    python -m benchmarks --only pg_index [--quick]      # 100k chunks (--quick: 10k)
    python -m benchmarks.stores.bench_pg_index [--rows N]

Chunks are real prose: the Gutenberg novels, the Python PEPs and the RFCs cut into ~100-word
chunks (about 14k of them); past that, the corpus's sentences are shuffled with another seed and
cut again, so every chunk is real sentences and no two passes repeat a chunk. Vectors come from
``FakeEmbedder(dim=384)`` (hashed words: cheap and deterministic, and texts sharing words are
near), computed once and handed to both indexes through ``insert_nodes``. Both load in 10k-node
batches, each one commit: a transaction in Postgres, a persisted generation in a folder for the
embedded index (then its segments merged, as an ingestion does); the embedded side is queried
from the folder, loaded, as the app serves it.

Queries are 50 short questions made of words of random chunks. The two sides' queries are
interleaved (one each, the side going first alternating), so a busy moment of this shared
machine lands on both alike; the ratios are of figures from this one run. Reported: load rate,
bytes on the server, hybrid and keyword-only p50/p90 and their ratios, how often the two
indexes return the same top-5 (HNSW is approximate above 10k nodes, the embedded search may be
too: the figure is what it is), and the per-chunk figures ``docs/scale.md`` projects from.
Last, ``pg_fulltext`` measures Postgres full text beside the postings BM25 on the same nodes.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.harness import Row, corpus_dir, format_table, machine_load
from benchmarks.stores.pg_fulltext import fulltext_rows
from benchmarks.stores.pg_sides import GROUP, interleaved, p
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.types import Node

DIM = 384
CHUNK_WORDS = 100
BATCH = 10_000
QUERIES = 50
TOP_K = 5
SOURCES = ("gutenberg_books/*.txt", "python_peps/*.rst", "rfcs/*.txt")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_WORD = re.compile(r"[A-Za-z]{4,}")


# -- data --------------------------------------------------------------------------------------

def corpus_sentences(corpus: Path) -> list[str]:
    """The prose of the corpus as sentences (whitespace folded, blank ones dropped)."""
    sentences: list[str] = []
    for pattern in SOURCES:
        for path in sorted(corpus.glob(pattern)):
            text = " ".join(path.read_text(encoding="utf-8", errors="replace").split())
            sentences += [s for s in _SENTENCE.split(text) if s]
    if not sentences:
        raise SystemExit(f"no text under {corpus} ({', '.join(SOURCES)}): set RAGCORE_CORPUS "
                         "to the benchmark corpus folder")
    return sentences


def chunk_texts(sentences: list[str], count: int) -> list[str]:
    """``count`` chunks of about ``CHUNK_WORDS`` words: the corpus in order, then shuffled
    again (seed 1, 2, ...) for as many passes as ``count`` needs."""
    chunks: list[str] = []
    order, seed = list(sentences), 0
    while len(chunks) < count:
        words: list[str] = []
        for sentence in order:
            words += sentence.split()
            if len(words) >= CHUNK_WORDS:
                chunks.append(" ".join(words))
                words = []
                if len(chunks) == count:
                    break
        seed += 1
        order = list(sentences)
        random.Random(seed).shuffle(order)
    return chunks


def make_nodes(texts: list[str]) -> list[Node]:
    return [Node(text=t, node_id=f"c{i:07d}")
            for i, t in enumerate(texts)]


def make_questions(texts: list[str], count: int = QUERIES, seed: int = 7) -> list[str]:
    """Short questions of three corpus words each (no stop words), from random chunks."""
    from ragcore.search.analysis import terms

    rng = random.Random(seed)
    questions = []
    while len(questions) < count:
        words = sorted(w for w in set(_WORD.findall(rng.choice(texts).lower())) if terms(w))
        if len(words) >= 3:
            a, b, c = rng.sample(words, 3)
            questions.append(f"what about {a} {b} and {c}?")
    return questions


# -- loading -----------------------------------------------------------------------------------

def load_pg(url: str, nodes: list[Node], vectors: np.ndarray) -> tuple[Any, float]:
    """A new PgIndex with ``nodes``, one commit per batch; (index, seconds)."""
    from ragcore.index.database import PgIndex

    index = PgIndex.create(url, f"bench{len(nodes)}_{os.getpid()}_{time.time_ns()}",
                           embedder=FakeEmbedder(dim=DIM), record={})
    started = time.perf_counter()
    for at in range(0, len(nodes), BATCH):
        index.insert_nodes(nodes[at:at + BATCH], vectors=vectors[at:at + BATCH])
        index.commit()
    return index, time.perf_counter() - started


def load_embedded(folder: Path, nodes: list[Node], vectors: np.ndarray) -> tuple[Any, float]:
    """The embedded index persisted batch by batch, merged, and loaded back; (index, seconds
    to persist and merge)."""
    from ragcore.index import VectorStoreIndex

    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
    started = time.perf_counter()
    for at in range(0, len(nodes), BATCH):
        index.insert_nodes(nodes[at:at + BATCH], vectors=vectors[at:at + BATCH])
        index.persist(folder)
    index.merge_segments(folder)
    seconds = time.perf_counter() - started
    return VectorStoreIndex.load(folder, embedder=FakeEmbedder(dim=DIM)), seconds


# -- querying ----------------------------------------------------------------------------------

def agreement(a: list[list[str]], b: list[list[str]]) -> tuple[float, float]:
    """(fraction of identical ordered top-k lists, mean overlap of the sets)."""
    same = sum(x == y for x, y in zip(a, b)) / len(a)
    overlap = statistics.mean(len(set(x) & set(y)) / max(len(x), len(y)) if x or y else 1.0
                              for x, y in zip(a, b))
    return same, overlap


def query_rows(label: str, pg: Any, local: Any, questions: list[str]) -> list[Row]:
    """p50/p90 of both sides for one mode, their ratio and their agreement."""
    mode = "hybrid" if label == "hybrid" else "keyword"
    sides = {}
    for side, index in (("pg", pg), ("embedded", local)):
        retriever = index.as_retriever(similarity_top_k=TOP_K, mode=mode)
        sides[side] = lambda q, r=retriever: [h.node.node_id for h in r.retrieve(q)]
    interleaved(sides, questions[:5])  # warm: caches, the embedded BM25 postings mapped
    got = interleaved(sides, questions)
    (pg_t, pg_ids), (em_t, em_ids) = got["pg"], got["embedded"]
    same, overlap = agreement(pg_ids, em_ids)
    n = len(pg)
    return [
        Row(GROUP, f"{label} p50 PgIndex {n:,}", p(pg_t, .5), "ms",
            note=f"p90 {p(pg_t, .9):.1f} ms"),
        Row(GROUP, f"{label} p50 embedded {n:,}", p(em_t, .5), "ms",
            note=f"p90 {p(em_t, .9):.1f} ms"),
        Row(GROUP, f"{label} p50 ratio PgIndex / embedded", p(pg_t, .5) / p(em_t, .5), "x",
            note=f"p90 ratio {p(pg_t, .9) / p(em_t, .9):.2f}x, {len(questions)} queries "
                 "interleaved"),
        Row(GROUP, f"{label} top-5 identical lists", same, "",
            note=f"mean top-5 overlap {overlap:.3f}"),
    ]


def plan_rows(index: Any, queries: np.ndarray) -> list[Row]:
    """The vector side alone: ``PgIndex.search`` as it is, against the same top-5 ordered by
    distance only (the one form of ORDER BY pgvector's HNSW index serves), interleaved, with
    the plan Postgres picks for the search's own statement shape (``vector_sql.nearest``)."""
    from psycopg import sql

    from ragcore.index.database.vector_sql import EF_SEARCH
    from ragcore.stores.postgres.connect import connect

    conn = connect(index.url)
    try:
        conn.execute(f"SET hnsw.ef_search = {EF_SEARCH}")
        table = sql.Identifier(index.tables.name("nodes"))
        hnsw = sql.SQL("SELECT node_id FROM {} ORDER BY embedding <=> %s::vector LIMIT %s")
        shape = sql.SQL("EXPLAIN SELECT node, 1 - (embedding <=> %s::vector) FROM {} ORDER BY "
                        "embedding <=> %s::vector LIMIT %s")  # vector_sql.nearest's shape
        plan = " ".join(r[0] for r in conn.execute(shape.format(table),
                                                   [queries[0], queries[0], TOP_K]))
        sides = {
            "search": lambda i: [h.node.node_id for h in index.search(queries[i], top_k=TOP_K)],
            "hnsw": lambda i: [r[0] for r in conn.execute(hnsw.format(table),
                                                          [queries[i], TOP_K])],
        }
        interleaved(sides, list(range(5)))
        got = interleaved(sides, list(range(len(queries))))
    finally:
        conn.close()
    used = "HNSW index scan" if "Index Scan" in plan else "Seq Scan + sort: HNSW unused"
    (s_t, s_ids), (h_t, h_ids) = got["search"], got["hnsw"]
    recall = statistics.mean(len(set(a) & set(b)) / TOP_K for a, b in zip(s_ids, h_ids))
    n = len(index)
    return [
        Row(GROUP, f"vector p50 PgIndex.search {n:,}", p(s_t, .5), "ms",
            note=f"p90 {p(s_t, .9):.1f} ms; plan: {used}"),
        Row(GROUP, f"vector p50 HNSW, ORDER BY distance only {n:,}", p(h_t, .5), "ms",
            note=f"p90 {p(h_t, .9):.1f} ms; recall@5 vs PgIndex.search {recall:.3f}"),
    ]


# -- sizes on the server -----------------------------------------------------------------------

def server_rows(index: Any, load_s: float, local_s: float, folder: Path) -> list[Row]:
    """Load rates, bytes on the server and the per-chunk figures a projection needs."""
    from ragcore.stores.postgres.connect import connect

    n, stats = len(index), index.stats()
    conn = connect(index.url)
    try:
        t = index.tables
        (postings,), = conn.execute(f'SELECT count(*) FROM "{t.name("postings")}"').fetchall()
        sizes = dict(conn.execute(
            "SELECT p, pg_total_relation_size(%s || p) FROM unnest(%s::text[]) p",
            [f"rc_{index.uid}_", ["nodes", "postings"]]).fetchall())
        (hnsw,), = conn.execute("SELECT pg_relation_size(%s)",
                                [t.name("nodes_embedding")]).fetchall()
    finally:
        conn.close()
    local_bytes = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
    total = stats["bytes_on_disk"]
    return [
        Row(GROUP, f"load PgIndex {n:,}", n / load_s, "rows/s",
            note=f"{load_s:.1f} s, {BATCH // 1000}k-node commits"),
        Row(GROUP, f"load embedded {n:,}", n / local_s, "rows/s",
            note=f"{local_s:.1f} s persisted + merged; PgIndex takes "
                 f"{load_s / local_s:.1f}x as long"),
        Row(GROUP, "bytes on the server", total, "B",
            note=f"{total / 2**20:,.0f} MB; embedded folder {local_bytes / 2**20:,.0f} MB"),
        Row(GROUP, "bytes per chunk (server)", total / n, "B",
            note=f"nodes+HNSW {sizes['nodes'] / n:,.0f}, postings {sizes['postings'] / n:,.0f}"),
        Row(GROUP, "HNSW index bytes per chunk", hnsw / n, "B",
            note=f"{hnsw / 2**20:,.0f} MB in all"),
        Row(GROUP, "postings rows per chunk", postings / n, "",
            note=f"{postings:,} rows, {sizes['postings'] / max(1, postings):.0f} B per row "
                 "with its two btrees"),
    ]


# -- the run -----------------------------------------------------------------------------------

def measure(url: str, rows: int, corpus: Path) -> list[Row]:
    """Every figure for ``rows`` chunks against the Postgres at ``url``."""
    texts = chunk_texts(corpus_sentences(corpus), rows)
    nodes, embedder = make_nodes(texts), FakeEmbedder(dim=DIM)
    vectors = embedder.embed_batch([n.text for n in nodes])
    questions = make_questions(texts)
    with tempfile.TemporaryDirectory(prefix="bench-pg-index-") as tmp:
        folder = Path(tmp) / "index"
        pg, load_s = load_pg(url, nodes, vectors)
        local, local_s = load_embedded(folder, nodes, vectors)
        try:
            out = server_rows(pg, load_s, local_s, folder)
            out += query_rows("hybrid", pg, local, questions)
            out += query_rows("keyword", pg, local, questions)
            out += plan_rows(pg, embedder.embed_batch(questions))
            out += fulltext_rows(pg, local, nodes, questions)
        finally:
            from ragcore.index.database import catalog

            name = pg.name
            pg.close()
            from ragcore.stores.postgres.connect import connect

            with connect(url) as conn:
                catalog.drop(conn, name)
    load = machine_load()
    out.append(Row(GROUP, "machine", os.cpu_count(), "CPUs",
                   note=f"load average {load[0]:.1f} at the end" if load else ""))
    return out


def run(quick: bool = False, corpus: Path | None = None, *, rows: int | None = None,
        url: str | None = None) -> list[Row]:
    """The figures at 100k chunks (``quick``: 10k; ``rows``: that many) on ``url``, or on a
    Postgres started here."""
    from ragcore.testing.engines import PG_PASSWORD, postgres_server

    size = rows or (10_000 if quick else 100_000)
    corpus = corpus or corpus_dir()
    with ExitStack() as stack:
        if url is None:
            os.environ["RAGCORE_PG_PASSWORD"] = PG_PASSWORD  # the password of our own server
            url = stack.enter_context(postgres_server())
        return measure(url, size, corpus)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.stores.bench_pg_index",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000, help="chunks (default 100,000)")
    args = parser.parse_args(argv)
    if args.rows < BATCH // 100:
        parser.error(f"--rows ({args.rows}) must be at least {BATCH // 100}")
    started = time.perf_counter()
    print(format_table(run(rows=args.rows)))
    print(f"\n{time.perf_counter() - started:.0f} s on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
