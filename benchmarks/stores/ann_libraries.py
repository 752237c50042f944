"""Which approximate-search library: faiss-cpu (HNSW, IVF), hnswlib and usearch side by side.

    python -m benchmarks.stores.ann_libraries [ROWS]      # default 100,000

On clustered 384-d vectors (``ragcore.testing.clustered``), inner product: build seconds (two
threads), memory added by the index (RSS before and after), top-10 latency p50/p95 one query
at a time on one thread (as a store query runs) and recall@10 against exact search, for a few
search widths per library. A library that is not installed is skipped with a note. The figures
and the choice are written down in ``docs/scale.md``; only the chosen library is a dependency.
"""

from __future__ import annotations

import sys
import time

import numpy as np
import psutil

from ragcore.testing.clustered import clustered_vectors

K = 10
QUERIES = 300


def exact_top(vectors: np.ndarray, queries: np.ndarray, k: int = K) -> np.ndarray:
    scores = queries @ vectors.T
    top = np.argpartition(-scores, k, axis=1)[:, :k]
    return top


def recall(found: list[np.ndarray], truth: np.ndarray) -> float:
    return float(np.mean([len(set(f.tolist()) & set(t.tolist())) / K
                          for f, t in zip(found, truth)]))


def _rss_mb() -> float:
    return psutil.Process().memory_info().rss / 1e6


def _timed_search(search, queries: np.ndarray) -> tuple[list[np.ndarray], float, float]:
    found, took = [], []
    for q in queries:
        start = time.perf_counter()
        found.append(np.asarray(search(q)).reshape(-1)[:K])
        took.append(time.perf_counter() - start)
    ms = np.array(took) * 1000
    return found, float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def faiss_hnsw(vectors, m=32, ef_construction=128):
    import faiss

    faiss.omp_set_num_threads(2)
    index = faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
    index.hnsw.efConstruction = ef_construction
    index.add(vectors)
    faiss.omp_set_num_threads(1)
    return _faiss_searcher(index, lambda ef: faiss.SearchParametersHNSW(efSearch=ef)), (
        32, 64, 128, 256)


def faiss_ivf(vectors, nlist=None):
    import faiss

    faiss.omp_set_num_threads(2)
    nlist = nlist or int(4 * np.sqrt(len(vectors)))
    quantizer = faiss.IndexFlatIP(vectors.shape[1])
    index = faiss.IndexIVFFlat(quantizer, vectors.shape[1], nlist, faiss.METRIC_INNER_PRODUCT)
    index.train(vectors[np.random.default_rng(0).choice(len(vectors),
                                                        min(len(vectors), 50 * nlist), False)])
    index.add(vectors)
    faiss.omp_set_num_threads(1)
    return _faiss_searcher(index, lambda n: faiss.SearchParametersIVF(nprobe=n)), (8, 16, 32, 64)


def _faiss_searcher(index, make_params):
    """A function of the search width giving a one-query top-K search at that width."""
    def searcher(width):
        params = make_params(width)
        return lambda q: index.search(q[None, :], K, params=params)[1]
    return searcher


def hnswlib_index(vectors, m=32, ef_construction=128):
    import hnswlib

    index = hnswlib.Index(space="ip", dim=vectors.shape[1])
    index.init_index(max_elements=len(vectors), M=m, ef_construction=ef_construction)
    index.add_items(vectors, num_threads=2)
    index.set_num_threads(1)

    def searcher(ef):
        index.set_ef(ef)
        return lambda q: index.knn_query(q, k=K)[0]
    return searcher, (32, 64, 128, 256)


def usearch_index(vectors, m=32, ef_construction=128):
    from usearch.index import Index

    index = Index(ndim=vectors.shape[1], metric="ip", dtype="f32", connectivity=m,
                  expansion_add=ef_construction)
    index.add(np.arange(len(vectors)), vectors, threads=2)

    def searcher(ef):
        index.expansion_search = ef
        return lambda q: index.search(q, K, threads=1).keys
    return searcher, (32, 64, 128, 256)


LIBRARIES = (("faiss HNSW M=32", faiss_hnsw), ("faiss IVF-Flat", faiss_ivf),
             ("hnswlib M=32", hnswlib_index), ("usearch M=32", usearch_index))


def compare(rows: int) -> list[dict]:
    vectors = clustered_vectors(rows)
    queries = clustered_vectors(QUERIES, clusters=max(1, rows // 500), draw=1)
    truth = exact_top(vectors, queries)
    results = []
    for name, build in LIBRARIES:
        before = _rss_mb()
        try:
            start = time.perf_counter()
            searcher, widths = build(vectors)
            build_s = time.perf_counter() - start
        except ImportError as exc:
            results.append({"library": name, "note": f"not installed ({exc})"})
            continue
        memory = _rss_mb() - before
        for width in widths:
            found, p50, p95 = _timed_search(searcher(width), queries)
            results.append({"library": name, "width": width, "build_s": build_s,
                            "memory_mb": memory, "p50_ms": p50, "p95_ms": p95,
                            "recall": recall(found, truth)})
            print(results[-1], flush=True)
        del searcher
    return results


if __name__ == "__main__":
    compare(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
