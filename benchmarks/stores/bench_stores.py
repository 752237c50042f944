"""The vector stores side by side: numpy (in the index folder), Chroma embedded, a Chroma server
and Postgres with pgvector, at 10k and 100k rows of dimension 384 (``--quick``: 10k only).

For each store and size: add (all rows, with metadata and document ids, in the store's own
batches), top-5 query latency (p50 over the queries), a filtered top-5 (``group == 3``: a tenth
of the rows) and its latency, recall@5 of both against exact search (the numpy store is exact),
how many filtered queries came back with fewer than 5 rows, bytes per row on disk (files, the
Chroma folder, or the Postgres table with its indexes), delete-by-document (20 documents of
10 rows), and reopen (a new store object from ``describe()`` through the registry, as
``VectorStoreIndex.load`` does, plus its first query). ``RAGCORE_BENCH_1M=1`` adds the numpy
store at 1M rows.

The vectors are clustered (1,000 centres, noise around each), like embeddings of a real corpus;
uniformly random vectors in 384 dimensions are all nearly equidistant, which no ANN index is
built for. The engines run on this machine on loopback, started by ``ragcore.testing.engines``.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Callable

import numpy as np

from benchmarks.harness import Row

DIM = 384
TOP_K = 5
QUERIES = 50
GROUPS = 10
DOC_ROWS = 10


def clustered(n: int, *, seed: int = 0, centres: int = 1000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    middle = rng.standard_normal((centres, DIM), dtype=np.float32)
    rows = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 100_000):
        size = min(100_000, n - start)
        block = middle[rng.integers(0, centres, size)]
        block += 0.6 * rng.standard_normal((size, DIM), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        rows[start : start + size] = block
    return rows


def _queries(vectors: np.ndarray, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    picked = vectors[rng.integers(0, len(vectors), QUERIES)].copy()
    picked += 0.3 * rng.standard_normal(picked.shape, dtype=np.float32) / np.sqrt(DIM)
    return picked / np.linalg.norm(picked, axis=1, keepdims=True)


def _ms(samples: list[float]) -> float:
    return 1000 * statistics.median(samples)


def _recall(got: list[list[str]], want: list[list[str]]) -> float:
    return sum(len(set(g) & set(w)) for g, w in zip(got, want)) / max(
        1, sum(len(w) for w in want))


def _measure(name: str, make: Callable[[], Any], vectors: np.ndarray, exact: dict,
             folder: Path) -> list[Row]:
    from ragcore.stores import MetadataFilter, MetadataFilters, open_vector_store

    n = len(vectors)
    label = f"{name} {n // 1000}k"
    ids = [f"n{i}" for i in range(n)]
    metadata = [{"group": i % GROUPS} for i in range(n)]
    doc_ids = [f"d{i // DOC_ROWS}" for i in range(n)]
    store = make()
    started = time.perf_counter()
    store.add(ids, vectors, metadata, doc_ids=doc_ids)
    add_s = time.perf_counter() - started
    red = MetadataFilters((MetadataFilter("group", 3),))
    rows = [Row("stores", f"{label}: add", add_s, "s", note=f"{n / add_s:,.0f} rows/s")]
    for kind, filters in (("query", None), ("filtered query", red)):
        times, got = [], []
        for q in exact["queries"]:
            t = time.perf_counter()
            hits = store.query(q, top_k=TOP_K, filters=filters)
            times.append(time.perf_counter() - t)
            got.append([i for i, _ in hits])
        short = sum(len(g) < TOP_K for g in got)
        recall = _recall(got, exact[kind])
        rows.append(Row("stores", f"{label}: {kind} p50", _ms(times), "ms",
                        note=f"recall@5 {recall:.3f}" + (f", {short} short" if short else "")))
    times = []
    for d in range(20):
        t = time.perf_counter()
        store.delete_ref_doc(f"d{d * 7}")
        times.append(time.perf_counter() - t)
    rows.append(Row("stores", f"{label}: delete one document", _ms(times), "ms"))
    spec = store.describe()
    saved = folder / f"{name.replace(' ', '_')}{n}"
    saved.mkdir(parents=True, exist_ok=True)
    store.persist(saved)  # the numpy store writes its files; a database store nothing
    size = _bytes_on_disk(store, saved)
    if size:
        rows.append(Row("stores", f"{label}: bytes per row on disk", size / len(store), "B",
                        note=f"{size / 2**20:,.0f} MB in all"))
    t = time.perf_counter()
    again = open_vector_store(spec, saved)
    again.query(exact["queries"][0], top_k=TOP_K)
    rows.append(Row("stores", f"{label}: reopen + first query", time.perf_counter() - t, "s",
                    note=f"{len(again):,} rows"))
    for closing in (store, again):
        if hasattr(closing, "drop") and closing is store:
            closing.drop()
        if hasattr(closing, "close"):
            closing.close()
    return rows


def _bytes_on_disk(store: Any, saved: Path) -> int | None:
    """The store's size: its files, its Chroma folder, or its Postgres table with indexes."""
    if hasattr(store, "table"):
        row = store._conn.execute("SELECT pg_total_relation_size(to_regclass(%s))",
                                  [store.table]).fetchone()
        return int(row[0] or 0)
    folder = Path(store.path) if getattr(store, "path", None) else saved
    if getattr(store, "url", None):
        return None  # a Chroma server's folder is its own
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _exact(vectors: np.ndarray) -> dict:
    from ragcore.stores import MetadataFilter, MetadataFilters, SimpleVectorStore

    store = SimpleVectorStore(metric="cosine")
    store.add([f"n{i}" for i in range(len(vectors))], vectors,
              [{"group": i % GROUPS} for i in range(len(vectors))])
    queries = _queries(vectors)
    red = MetadataFilters((MetadataFilter("group", 3),))
    return {
        "queries": queries,
        "query": [[i for i, _ in store.query(q, top_k=TOP_K)] for q in queries],
        "filtered query": [[i for i, _ in store.query(q, top_k=TOP_K, filters=red)]
                           for q in queries],
    }


def _makers(folder: Path, chroma_url: str | None, pg_url: str | None, n: int) -> dict:
    from ragcore.stores import SimpleVectorStore

    makers: dict[str, Callable[[], Any]] = {"numpy": lambda: SimpleVectorStore(metric="cosine")}
    try:
        from ragcore.stores.chroma import ChromaVectorStore

        makers["chroma embedded"] = lambda: ChromaVectorStore(
            path=folder / f"chroma{n}", collection=f"bench{n}")
        if chroma_url:
            makers["chroma server"] = lambda: ChromaVectorStore(url=chroma_url,
                                                                collection=f"bench{n}")
    except ImportError:
        pass
    if pg_url:
        from ragcore.stores.postgres.pgvector import PGVectorStore

        makers["postgres"] = lambda: PGVectorStore(pg_url, table=f"bench{n}")
    return makers


def run(quick: bool = False) -> list[Row]:
    from ragcore.testing.engines import (
        PG_PASSWORD,
        EngineMissing,
        chroma_server,
        postgres_server,
    )

    sizes = [10_000] if quick else [10_000, 100_000]
    rows: list[Row] = []
    with ExitStack() as stack, tempfile.TemporaryDirectory(prefix="bench-stores-") as tmp:
        engines: dict[str, str | None] = {}
        for key, start in (("chroma", chroma_server), ("pg", postgres_server)):
            try:
                engines[key] = stack.enter_context(start())
            except EngineMissing as exc:
                engines[key] = None
                rows.append(Row("stores", f"{key} engine", None, note=f"not available: {exc}"))
        os.environ["RAGCORE_PG_PASSWORD"] = PG_PASSWORD  # the password of our own server
        for n in sizes:
            vectors = clustered(n)
            exact = _exact(vectors)
            for name, make in _makers(Path(tmp), engines["chroma"], engines["pg"], n).items():
                rows += _measure(name, make, vectors, exact, Path(tmp))
        if os.environ.get("RAGCORE_BENCH_1M"):
            vectors = clustered(1_000_000)
            from ragcore.stores import SimpleVectorStore

            rows += _measure("numpy", lambda: SimpleVectorStore(metric="cosine"), vectors,
                             _exact(vectors), Path(tmp))
    return rows
