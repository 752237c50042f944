"""How the embedded index scales: 10k / 100k (/ 1M) clustered 384-d vectors with node records.

    python -m benchmarks --only scale [--quick]     # --quick: 10k and 100k; else up to 1M

One index grows through the public API (``VectorStoreIndex.upsert_documents`` with precomputed
vectors from ``ragcore.testing.clustered``, documents of 100 short nodes, persisted to a
folder), so whatever the store and docstore formats do shows here. At each size: one more
2k-node batch is added (seconds) and committed (seconds, bytes of new files: hard-linked
segments are not written again), and seven more against seven into a 2k-node index, taken in
turns (``bench_commit.ratio_rows``: at most 1.3x, a commit's work following its batch); the
commit of the big batch that grows the index to each size
is timed too (it writes the batch's BM25 postings and, for a big segment, its approximate index);
the index is loaded and the first keyword query timed (the saved postings mapped, nothing
analyzed), then on a second load the first hybrid query (nothing is built after a load);
then top-10 latency p50/p95 of the store with its approximate search (``ragcore.stores.simple.ann``)
against the same store opened exact, recall@10 between them, a filtered query keeping half the
rows and one keeping a single document, and the process's peak RSS so far. Growing by one big
batch per size leaves one big segment, as the merges of a long 2k-batch ingestion would.

First a row for the query threads (``ragcore.stores.query_threads``): top-5 over 10k vectors
with numpy's default BLAS threads against one thread, on this machine as loaded as it is.

Then the approximate index's self-measurement (``ragcore.stores.simple.ann_recall``) on three kinds of
data, each one store segment persisted and loaded: uniform random unit vectors (no structure:
the worst case), clustered ones (what the settings were tuned on) and the packaged model's
embeddings of corpus chunks (python_peps and rust_book, 256-token chunks, 300 held out as
queries; vectors cached in ``benchmarks/.cache``: the first run embeds them, minutes). For
each: the recall@10 measured at persist and the nprobe chosen (or exact search), recall@10 of
fresh queries against exact search, top-10 p50 against the same rows searched exactly, and what
the measurement added to the persist. An explicit list of sizes skips the real embeddings.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.index.bench_commit import inodes, new_bytes, ratio_rows
from benchmarks.harness import Row, peak_memory_mb, timed
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.index.disk.merger import BackgroundMerger, merges_due
from ragcore.stores import SimpleVectorStore
from ragcore.stores.simple import segments
from ragcore.stores.simple.ann import AnnSettings
from ragcore.stores.simple.ann_recall import read_recall
from ragcore.testing.clustered import clustered_vectors
from ragcore.trace import Trace
from ragcore.types import Document, Node

DIM = 384
BATCH = 2_000
DOC_NODES = 100
CLUSTERS = 2_000
QUERIES = 200  # per latency figure
WORDS = ("zero", "trust", "policy", "access", "network", "identity", "risk", "asset")


def make_batch(first: int, count: int) -> tuple[list[Document], list[Node], np.ndarray]:
    """Documents of ``DOC_NODES`` nodes for node numbers ``first..first+count-1``."""
    docs, nodes = [], []
    for d in range(first // DOC_NODES, (first + count) // DOC_NODES):
        doc_id = f"doc-{d:07d}.txt"
        docs.append(Document(text="", doc_id=doc_id, metadata={"file_name": doc_id}))
        nodes += [Node(text=f"node {n} about {WORDS[n % 8]} and {WORDS[(n * 7) % 8]}",
                       node_id=f"{doc_id}#{n}", ref_doc_id=doc_id,
                       metadata={"file_name": doc_id, "half": "ab"[n % 2]})
                  for n in range(d * DOC_NODES, (d + 1) * DOC_NODES)]
    vectors = clustered_vectors(count, DIM, clusters=CLUSTERS, draw=2 + first // BATCH)
    return docs, nodes, vectors


def thread_rows(count: int = 100) -> list[Row]:
    from threadpoolctl import threadpool_limits

    matrix = clustered_vectors(10_000, DIM)
    queries = clustered_vectors(count, DIM, draw=1)

    def per_query_ms() -> float:
        start = time.perf_counter()
        for q in queries:
            scores = matrix @ q
            np.argpartition(-scores, 5)[:5]
        return (time.perf_counter() - start) / len(queries) * 1000

    default = min(per_query_ms() for _ in range(3))
    with threadpool_limits(limits=1, user_api="blas"):
        one = min(per_query_ms() for _ in range(3))
    return [Row("scale", "top-5 over 10k, BLAS default threads", default, "ms"),
            Row("scale", "top-5 over 10k, one thread (query path)", one, "ms",
                note=f"{default / one:.1f}x faster: the store holds queries to one thread")]


def recall_rows(rows: int, *, real: bool) -> list[Row]:
    """The approximate index's self-measurement on random, clustered and real vectors."""
    draw = np.random.default_rng(7)
    sets = {
        "random": (_unit(draw.standard_normal((rows, DIM), dtype=np.float32)),
                   _unit(draw.standard_normal((QUERIES, DIM), dtype=np.float32))),
        "clustered": (clustered_vectors(rows, DIM, clusters=CLUSTERS),
                      clustered_vectors(QUERIES, DIM, clusters=CLUSTERS, draw=1)),
    }
    if real:
        sets["real embeddings"] = corpus_vectors()
    found = []
    with tempfile.TemporaryDirectory(prefix="ragcore-recall-") as tmp:
        for number, (kind, (vectors, queries)) in enumerate(sets.items()):
            found += measured_rows(kind, vectors, queries, Path(tmp) / str(number))
    return found


def measured_rows(kind: str, vectors: np.ndarray, queries: np.ndarray, folder: Path) -> list[Row]:
    """One segment of ``vectors`` persisted (its index built and measured) and loaded."""
    settings = AnnSettings(min_rows=min(len(vectors), AnnSettings().min_rows))
    store = SimpleVectorStore(ann=settings)
    store.add([f"n{i}" for i in range(len(vectors))], vectors)
    persist_s, _ = timed(lambda: store.persist(folder))
    loaded = SimpleVectorStore.load(folder, ann=settings)
    exact = SimpleVectorStore.load(folder, ann=None)
    [segment] = loaded.approximate_search()
    measured = read_recall(folder)
    found, ann50, _ = latency(loaded, queries)
    truth, exact50, _ = latency(exact, queries)
    recall = float(np.mean([len(set(a) & set(t)) / 10 for a, t in zip(found, truth)]))
    label = f"{kind}, {len(vectors):,} x {vectors.shape[1]}"
    chosen = (f"nprobe {segment['nprobe']} of {segment['lists']} lists" if segment["nprobe"]
              else f"exact search (nprobe {measured.tried} of {segment['lists']} reached "
                   f"{measured.recall:.3f})")
    return [
        Row("scale", f"ANN recall@10 measured at persist, {label}", measured.recall, "",
            note=f"{chosen}; {measured.queries} sampled queries"),
        Row("scale", f"recall@10 vs exact, fresh queries, {label}", recall, "", ">= 0.98",
            bool(recall >= 0.98), note=f"{len(queries)} queries; {segment['search']} search"),
        Row("scale", f"top-10 p50 / exact p50, {label}", ann50 / exact50, "x",
            note=f"{ann50:.2f} ms vs {exact50:.2f} ms exact"),
        Row("scale", f"self-measurement at persist, {label}", measured.seconds, "s",
            note=f"of a {persist_s:.2f} s persist (index build included)"),
    ]


def corpus_vectors(held_out: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """The packaged model's vectors of corpus chunks (cached), and held-out chunks as queries."""
    import hashlib

    from benchmarks.harness import corpus_dir
    from ragcore.chunking import SentenceSplitter
    from ragcore.embeddings import default_embedder
    from ragcore.embeddings.base import embed_texts

    files = [f for folder in ("python_peps", "rust_book")
             for f in sorted((corpus_dir() / folder).glob("*")) if f.suffix in (".rst", ".md")]
    splitter = SentenceSplitter(chunk_size=256, chunk_overlap=20)
    chunks = [c for f in files for c in splitter.split_text(f.read_text(errors="replace"))]
    digest = hashlib.blake2b("\0".join(chunks).encode(), digest_size=8).hexdigest()
    cache = Path(__file__).resolve().parents[1] / ".cache" / f"ann-recall-vectors-{digest}.npy"
    if cache.exists():
        vectors = np.load(cache, allow_pickle=False)
    else:
        vectors = embed_texts(default_embedder(), chunks)
        cache.parent.mkdir(exist_ok=True)
        np.save(cache, vectors)
    held = np.zeros(len(vectors), dtype=bool)
    held[np.random.default_rng(0).choice(len(vectors), held_out, replace=False)] = True
    return vectors[~held], vectors[held]


def _unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def commit_batch(index: VectorStoreIndex, path: Path) -> tuple[float, float, int]:
    """Add one 2k batch and commit it: seconds adding, seconds committing, bytes written."""
    docs, nodes, vectors = make_batch(len(index), BATCH)
    add_s, _ = timed(lambda: index.upsert_documents(docs, nodes, vectors))
    before = inodes(path)
    commit_s, _ = timed(lambda: index.persist(path))
    return add_s, commit_s, new_bytes(path, before)


def commit_rows(index: VectorStoreIndex, path: Path, label: str) -> list[Row]:
    add_s, commit_s, written = commit_batch(index, path)
    return [Row("scale", f"add 2k batch at {label}", add_s, "s"),
            Row("scale", f"commit 2k batch at {label}", commit_s, "s"),
            Row("scale", f"commit bytes per 2k batch at {label}", written / 1e6, "MB",
                note="flat when a commit writes only the batch")]


def merge_rows(index: VectorStoreIndex, path: Path, label: str, *, whole: bool) -> list[Row]:
    """2k batches committed until a size tier is due (a commit never merges), then one more
    committed while the merger (``ragcore.index.disk.merger``, a background thread) merges:
    ``whole``: every segment, the big one too (for the time, every segment counts as one tier
    and two make a merge), so the merge reads every row and builds the merged segment's
    approximate index: the biggest merge an index of this size has."""
    commits, added = [], []
    factor, tier = segments.FACTOR, segments.tier
    if whole:
        segments.FACTOR, segments.tier = 2, lambda rows: 0
    try:
        while not merges_due(index):
            add_s, commit_s, written = commit_batch(index, path)
            commits.append(commit_s)
            added.append(written)
        before = len(index.store._segments)
        merger = BackgroundMerger(index, path)
        merger.start()
        try:
            time.sleep(0.05)  # the merger has planned (under the lock) and is writing
            busy = merger.running()
            _, during_s, _ = commit_batch(index, path)
        finally:
            merger.wait()  # never leave it writing into a folder being removed
    finally:
        segments.FACTOR, segments.tier = factor, tier
    what = "the whole index" if whole else "a tier of 2k segments"
    rows = [Row("scale", f"commit 2k batch while merging {what}, at {label}", during_s, "s",
                note="the merger was " + ("still writing" if busy else "done by then")
                     + ": the commit waits only for an install, never for a merge")]
    if commits:
        rows.append(Row("scale", f"commits of 2k batches until {what} is due, at {label}",
                        float(np.median(commits)), "s",
                        note=f"median of {len(commits)}, max {max(commits):.3f} s, "
                             f"{np.median(added) / 1e6:.1f} MB each: no commit merges"))
    rows.append(Row("scale", f"merge of {what} (background), at {label}", merger.seconds, "s",
                    note=f"{merger.merges} merge(s); vector segments {before} -> "
                         f"{len(index.store._segments)}"
                         + (f"; failed: {merger.error}" if merger.error else "")))
    return rows


def latency(store, queries: np.ndarray, **options) -> tuple[list[list[str]], float, float]:
    found, took = [], []
    for q in queries:
        start = time.perf_counter()
        found.append([i for i, _ in store.query(q, top_k=10, **options)])
        took.append(time.perf_counter() - start)
    ms = np.array(took) * 1000
    return found, float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def keyword_rows(path: Path, label: str) -> list[Row]:
    """The first keyword query of a fresh load: the saved postings mapped, nothing analyzed."""
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM))
    question = "trust policy and network risk"
    parts_s, keywords = timed(index.keyword_index)
    bm25_s, _ = timed(lambda: keywords.search(question, top_k=10))
    search_s, _ = timed(lambda: index.keyword_search(question, top_k=10))
    return [Row("scale", f"first keyword query after load at {label}", parts_s + search_s, "s",
                note=f"postings of {len(keywords.parts)} segments mapped {parts_s:.3f} s, BM25 "
                     f"{bm25_s:.3f} s; the rest the hits' nodes read on their rows")]


def query_rows(path: Path, label: str) -> list[Row]:
    rows = keyword_rows(path, label)
    load_s, index = timed(lambda: VectorStoreIndex.load(path, embedder=FakeEmbedder(dim=DIM)))
    adopted = index.store._ann.indexed_rows() if index.store._ann else 0
    queries = clustered_vectors(QUERIES, DIM, clusters=CLUSTERS, draw=1)
    retriever = index.as_retriever(mode="hybrid", similarity_top_k=10)
    first_s, _ = timed(lambda: retriever.retrieve("trust policy and network risk", trace=Trace()))
    vector_s, _ = timed(lambda: index.store.query(queries[0], top_k=10))
    generation = json.loads((path / "manifest.json").read_text())["generation"]
    exact = SimpleVectorStore.load(path / generation, ann=None)
    approximate, ann50, ann95 = latency(index.store, queries)
    truth, exact50, exact95 = latency(exact, queries)
    recall = np.mean([len(set(a) & set(t)) / 10 for a, t in zip(approximate, truth)])
    _, half50, _ = latency(index.store, queries[:50], filters={"half": "a"})
    one_doc = {"file_name": "doc-0000003.txt"}
    _, doc50, _ = latency(index.store, queries[:50], filters=one_doc)
    segments = index.store._ann.indexed_rows() if index.store._ann else 0
    return rows + [
        Row("scale", f"load at {label}", load_s, "s",
            note=f"maps the saved approximate indexes ({adopted:,} rows): no build"),
        Row("scale", f"first hybrid query after load at {label}", first_s, "s",
            note="vector and keyword search, both from what the load mapped"),
        Row("scale", f"next vector query at {label}", vector_s, "s"),
        Row("scale", f"top-10 exact p50 / p95 at {label}", exact50, "ms",
            note=f"p95 {exact95:.2f} ms"),
        Row("scale", f"top-10 ANN p50 / p95 at {label}", ann50, "ms", note=f"p95 {ann95:.2f} ms"),
        Row("scale", f"recall@10 ANN vs exact at {label}", float(recall), "", ">= 0.98",
            bool(recall >= 0.98) if segments else None,
            note="" if segments else "no segment above the ANN threshold: exact"),
        Row("scale", f"filtered top-10 (half the rows) p50 at {label}", half50, "ms"),
        Row("scale", f"filtered top-10 (one document) p50 at {label}", doc50, "ms"),
        Row("scale", f"peak RSS after {label}", peak_memory_mb(), "MB"),
    ]


def run(*, quick: bool = False, sizes: tuple[int, ...] = (),
        thread_queries: int = 100) -> list[Row]:
    chosen = bool(sizes)  # a test or a quick look: no corpus embedding (minutes the first time)
    sizes = sizes or ((10_000, 100_000) if quick else (10_000, 100_000, 1_000_000))
    rows = thread_rows(thread_queries)
    rows += recall_rows(min(sizes[-1], 100_000), real=not chosen)
    with tempfile.TemporaryDirectory(prefix="ragcore-scale-") as tmp:
        path = Path(tmp) / "index"
        index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
        for size in sizes:
            started = time.perf_counter()
            grow = size - BATCH - len(index)
            index.upsert_documents(*make_batch(len(index), grow))
            big_s, _ = timed(lambda: index.persist(path))
            label = f"{size // 1000:,}k"
            rows.append(Row("scale", f"commit of the {grow // 1000:,}k-node batch before {label}",
                            big_s, "s", note="writes its postings, and its approximate index "
                            f"when over {AnnSettings().min_rows:,} rows"))
            rows += commit_rows(index, path, label)
            rows += ratio_rows(index, path, label, make_batch)
            rows += query_rows(path, label)
            rows += merge_rows(index, path, label, whole=False)
            rows += merge_rows(index, path, label, whole=True)
            sys.stderr.write(f"  scale {label}: {time.perf_counter() - started:.1f} s\n")
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    chosen = tuple(int(a) for a in sys.argv[1:] if a.isdigit())  # e.g. 10000 100000
    print(format_table(run(quick="--quick" in sys.argv, sizes=chosen)))
