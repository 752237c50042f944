"""Search and index-load benchmarks on synthetic data: top-5 latency and 100k-node load time.

Top-5 latency of ``SimpleVectorStore.query`` at 10k, 100k and 1M normalized vectors of dim 384,
beside a bare numpy ``matrix @ query`` + ``argpartition`` on the same matrix (the floor any exact
search pays). Then a 100k-node index with random vectors is persisted and loaded in a fresh
process (as a user's next command would), timing only the load. Last, keyword (BM25) and
hybrid top-5 latency over 10k nodes of real prose (the Gutenberg books in 150-word passages,
random vectors, the hashing embedder for the hybrid's question), with the keyword index's
build time at 10k and 20k nodes reported separately (it is built on the first keyword query).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks.harness import Row, best_of, corpus_dir, timed

DIM = 384
TOP_K = 5
_LOAD_SCRIPT = """
import sys, time
start = time.perf_counter()
from ragcore.index import VectorStoreIndex
index = VectorStoreIndex.load(sys.argv[1])
n = len(index)
took = time.perf_counter() - start
from ragcore.tokens import tokenizer_loaded
print(took, n, int(tokenizer_loaded()), int('torch' in sys.modules))
"""


def random_unit_vectors(n: int, dim: int = DIM, *, seed: int = 0) -> np.ndarray:
    """``n`` random normalized float32 rows, made in blocks so 1M rows need no big temporaries."""
    rng = np.random.default_rng(seed)
    vectors = np.empty((n, dim), dtype=np.float32)
    for start in range(0, n, 100_000):
        block = rng.standard_normal((min(100_000, n - start), dim), dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        vectors[start : start + len(block)] = block
    return vectors


def bare_top_k(matrix: np.ndarray, query: np.ndarray, k: int = TOP_K) -> np.ndarray:
    """The floor: one matrix-vector product, argpartition, sort the k winners."""
    scores = matrix @ query
    top = np.argpartition(-scores, k)[:k]
    return top[np.argsort(-scores[top])]


def _store_with(vectors: np.ndarray):
    from ragcore.stores import SimpleVectorStore

    store = SimpleVectorStore(metric="cosine")
    ids = [f"n{i}" for i in range(len(vectors))]
    store.add(ids, vectors, [{} for _ in ids])
    return store


def top_k_rows(size: int, *, repeat: int) -> list[Row]:
    vectors = random_unit_vectors(size)
    queries = random_unit_vectors(repeat, seed=1)
    build_s, store = timed(lambda: _store_with(vectors))
    store.query(queries[0], top_k=TOP_K)  # warm-up: any lazy matrix build happens here

    def ours() -> None:
        for q in queries:
            store.query(q, top_k=TOP_K)

    def bare() -> None:
        for q in queries:
            bare_top_k(vectors, q)

    ours_ms = best_of(ours, 3) / repeat * 1000
    bare_ms = best_of(bare, 3) / repeat * 1000
    ratio = ours_ms / bare_ms if bare_ms else None
    label = f"{size:,}"
    target = "<= 2x bare" if size == 100_000 else ""
    return [
        Row("search", f"top-5 latency, {label} x {DIM}", ours_ms, "ms"),
        Row("search", f"bare matmul+argpartition, {label}", bare_ms, "ms"),
        Row("search", f"top-5 / bare ratio, {label}", ratio, "x", target,
            None if not target or ratio is None else ratio <= 2.0),
        Row("search", f"store add, {label} vectors", build_s, "s"),
    ]


def synthetic_index(count: int, *, seed: int = 0):
    """A VectorStoreIndex of ``count`` short nodes with random vectors (no embedding model)."""
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.index import VectorStoreIndex
    from ragcore.stores import SimpleVectorStore
    from ragcore.types import Node

    words = ("zero", "trust", "policy", "access", "network", "identity", "risk", "asset")
    nodes = [
        Node(text=f"node {i} about {words[i % 8]} and {words[(i * 7) % 8]}",
             node_id=f"node-{i}", ref_doc_id=f"doc-{i // 50}",
             metadata={"file_name": f"doc-{i // 50}.txt", "page": i % 50 + 1})
        for i in range(count)
    ]
    store = SimpleVectorStore(metric="cosine")
    store.add([n.node_id for n in nodes], random_unit_vectors(count, seed=seed),
              [n.metadata for n in nodes], doc_ids=[n.ref_doc_id for n in nodes])
    return VectorStoreIndex.from_vector_store(store, nodes=nodes, embedder=FakeEmbedder(dim=DIM))


def load_rows(count: int) -> list[Row]:
    index = synthetic_index(count)
    with tempfile.TemporaryDirectory(prefix="ragcore-bench-") as tmp:
        folder = Path(tmp) / "index"
        persist_s, _ = timed(lambda: index.persist(folder))
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        runs = [_load_in_fresh_process(folder) for _ in range(3)]
    load_s = min(r[0] for r in runs)
    tokenizer, torch = runs[0][2], runs[0][3]
    label = f"{count // 1000}k"
    return [
        Row("persist", f"persist {label}-node index", persist_s, "s"),
        Row("persist", "bytes on disk per node", size / count, "B",
            note=f"{size / 1e6:.1f} MB total, dim {DIM}"),
        Row("persist", f"load {label}-node index, fresh process", load_s, "s", "< 1 s",
            load_s < 1.0,
            note=f"tokenizer loaded: {bool(tokenizer)}, torch imported: {bool(torch)}"),
    ]


def _load_in_fresh_process(folder: Path) -> tuple[float, int, int, int]:
    proc = subprocess.run([sys.executable, "-c", _LOAD_SCRIPT, str(folder)],
                          capture_output=True, text=True, timeout=300, check=True)
    took, count, tokenizer, torch = proc.stdout.split()
    return float(took), int(count), int(tokenizer), int(torch)


def run(*, quick: bool = False) -> list[Row]:
    sizes = (10_000, 100_000) if quick else (10_000, 100_000, 1_000_000)
    rows: list[Row] = []
    for size in sizes:
        started = time.perf_counter()
        rows += top_k_rows(size, repeat=20 if size >= 1_000_000 else 50)
        sys.stderr.write(f"  top-5 at {size:,}: {time.perf_counter() - started:.1f} s\n")
    rows += load_rows(100_000)
    rows += keyword_rows(10_000)
    return rows


KEYWORD_QUESTIONS = (
    "What is the name of the whale?", "Who is the captain of the ship?",
    "Where does Elizabeth meet Mr Darcy?", "What did the monster ask Frankenstein to make?",
    "How does the time traveller reach the future?", "What happened at the tea party?",
    "Why does Dracula travel to England?", "What is the meaning of the scarlet letter?",
)


def prose_nodes(count: int, *, words: int = 150) -> list:
    """``count`` passages of ``words`` words cut from the Gutenberg books (repeated if short)."""
    from ragcore.types import Node

    books = sorted((corpus_dir() / "gutenberg_books").glob("*.txt"))
    text = " ".join(p.read_text(encoding="utf-8", errors="replace") for p in books).split()
    return [
        Node(" ".join(text[(i * words) % (len(text) - words):][:words]), node_id=f"p{i}",
             ref_doc_id=f"doc-{i // 50}", metadata={"file_name": f"book-{i // 50}.txt"})
        for i in range(count)
    ]


def keyword_rows(count: int) -> list[Row]:
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.index import VectorStoreIndex
    from ragcore.index.keyword import KeywordIndex
    from ragcore.trace import Trace

    nodes = prose_nodes(count * 2)
    index = VectorStoreIndex(embedder=FakeEmbedder(dim=DIM))
    index.insert_nodes(nodes[:count], vectors=random_unit_vectors(count))
    build_s = best_of(lambda: KeywordIndex.build(index.all_nodes()), 3)
    build_2x_s = best_of(lambda: KeywordIndex.build(nodes), 3)
    index.keyword_index()  # built once, as the first keyword query would
    label = f"{count // 1000}k"
    rows = [
        Row("keyword", f"keyword index build, {label} nodes", build_s, "s", "< 1 s",
            build_s < 1.0, note="150-word passages; on the first keyword query, not at load"),
        Row("keyword", f"keyword index build, {2 * count // 1000}k nodes", build_2x_s, "s"),
    ]
    for mode in ("keyword", "hybrid"):
        retriever = index.as_retriever(mode=mode, similarity_top_k=TOP_K)

        def ask(retriever=retriever) -> None:
            for question in KEYWORD_QUESTIONS:
                retriever.retrieve(question, trace=Trace())

        ask()
        ms = best_of(ask, 5) / len(KEYWORD_QUESTIONS) * 1000
        note = "BM25 + node fetch" if mode == "keyword" else "hashing embedder, vector + BM25, fused"
        rows.append(Row("keyword", f"{mode} top-5 latency, {label} nodes", ms, "ms", note=note))
    return rows
