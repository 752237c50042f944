"""The packaged model's three variants side by side: speed, agreement with torch, retrieval quality.

Variants: torch float32 (sentence-transformers, the old default), ONNX float32 and ONNX int8
(``ragcore.embeddings.onnx``; float32 is the default, ``packaged``). All run on the nodes of the
retrieval benchmark's index (the files ``benchmarks/answers`` asks about, split the default way;
the cached index's nodes when there is one, so the figures match ``--only retrieval``):

- chunks/s: 1,000 of those nodes (250 in a quick run; every n-th, so every collection is in)
  embedded the way an index embeds them (``embed_nodes``: longest first, in calls of 256),
  after a warm-up; wall and CPU seconds (CPU time shows the work when other processes share
  the cores);
- cosine agreement with torch on the same 1,000 (mean and minimum);
- nDCG@10 of dense ("similarity") and the default ("hybrid") retrieval over all answerable
  questions, each variant embedding every node and every question itself; target: int8 within
  0.005 of torch. Node vectors are cached in ``benchmarks/.cache/embedders/`` by variant and
  a digest of the node texts (the torch ones take many minutes on 2 cores). ONNX float32 is
  scored only when its vectors are cached: its cosine with torch (> 0.9999) settles it;
- cold start: a fresh process importing ragcore and embedding one question, the export cached
  (time to the first query vector); and, in a full run, one export into an empty cache.

    python -m benchmarks --only embedders
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import fmean

import numpy as np

from benchmarks.harness import Row, corpus_dir, timed, timed_cpu
from ragcore.embeddings.onnx_export import EXPORT_VERSION

GROUP = "embedders"
SPEED_CHUNKS = 1000
VECTOR_CACHE = Path(__file__).resolve().parent / ".cache" / "embedders"
TORCH, ONNX_FP32, ONNX_INT8 = "torch float32", "ONNX float32", "ONNX int8"
QUALITY_DROP = 0.005


def make_embedder(variant: str):
    from ragcore.embeddings import OnnxEmbedder, SentenceTransformerEmbedder

    if variant == TORCH:
        return SentenceTransformerEmbedder()
    return OnnxEmbedder(quantized=variant == ONNX_INT8)


def benchmark_nodes(corpus: Path):
    """The questions, and the nodes of the retrieval benchmark's cached index (the newest one
    in ``benchmarks/.cache``), else of its files split the default way."""
    from benchmarks.answers.corpus_index import CACHE_DIR, question_files
    from benchmarks.answers.question_set import load_questions
    from ragcore import SentenceSplitter, SimpleDirectoryReader, VectorStoreIndex

    questions = load_questions()
    cached = sorted(CACHE_DIR.glob("answers-index-*"), key=lambda p: p.stat().st_mtime)
    if cached:
        return questions, list(VectorStoreIndex.load(cached[-1]).all_nodes())
    documents = SimpleDirectoryReader(input_files=question_files(questions, corpus)).load_data()
    return questions, SentenceSplitter().get_nodes_from_documents(documents)


def node_vectors(variant: str, embedder, nodes, *, compute: bool = True) -> np.ndarray | None:
    """Every node's vector from ``variant``, computed once and cached by the node texts
    (None when not cached and not ``compute``)."""
    from ragcore.embeddings.base import embed_nodes

    digest = hashlib.sha256()
    for node in nodes:
        digest.update(node.node_id.encode() + b"\0" + node.text.encode() + b"\0")
    if variant != TORCH:  # a new export (say another quantisation) gives new vectors
        digest.update(f"export {EXPORT_VERSION}".encode())
    path = VECTOR_CACHE / f"{variant.replace(' ', '-')}-{digest.hexdigest()[:16]}.npy"
    if path.is_file():
        return np.load(path, allow_pickle=False)
    if not compute:
        return None
    sys.stderr.write(f"  {variant}: embedding {len(nodes):,} nodes (cached afterwards)\n")
    vectors = embed_nodes(embedder, nodes)
    VECTOR_CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors, allow_pickle=False)
    return vectors


def speed_rows(variant: str, embedder, sample, reference) -> tuple[list[Row], np.ndarray]:
    from ragcore.embeddings.base import embed_nodes

    embed_nodes(embedder, sample[:32])  # loads the model: cold start is measured apart
    wall, cpu, vectors = timed_cpu(lambda: embed_nodes(embedder, sample))
    rows = [Row(GROUP, f"chunks/s {variant}", len(sample) / wall, "chunks/s",
                note=f"{len(sample)} chunks in {wall:.1f} s wall, {cpu:.1f} s CPU "
                     f"({len(sample) / cpu:.0f} chunks per CPU-second)")]
    if reference is not None:
        agreement = np.einsum("ij,ij->i", vectors, reference)
        rows.append(Row(GROUP, f"cosine with torch, {variant}", float(agreement.mean()),
                        note=f"minimum {agreement.min():.5f} over {len(sample)} chunks"))
    return rows, vectors


def ndcg(embedder, nodes, vectors, questions) -> dict[str, float]:
    """nDCG@10 of similarity and hybrid retrieval over an in-memory index of these vectors."""
    from benchmarks.bench_retrieval import relevant_totals, score_mode
    from ragcore import VectorStoreIndex
    from ragcore.stores.simple import SimpleVectorStore

    store = SimpleVectorStore()
    store.add([n.node_id for n in nodes], vectors, [n.metadata for n in nodes],
              doc_ids=[n.ref_doc_id for n in nodes])
    index = VectorStoreIndex.from_vector_store(store, nodes=nodes, embedder=embedder)
    answerable = [q for q in questions if q.answerable]
    totals = relevant_totals(index, answerable)
    result = {}
    for mode in ("similarity", "hybrid"):
        scores, _ = score_mode(index, mode, answerable, totals)
        result[mode] = fmean(s["nDCG@10"] for s in scores.values())
    return result


def cold_start(variant: str) -> float:
    """Seconds for a fresh process to import ragcore and embed one question."""
    code = ("import time; t = time.perf_counter();"
            "from benchmarks.embedders import make_embedder;"
            f"make_embedder({variant!r}).embed_batch(['How do I open a file?']);"
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[1])
    return float(out.stdout.strip().splitlines()[-1])


def export_seconds() -> float:
    """One export (float32 and int8) of the packaged model into an empty cache."""
    from ragcore.embeddings import OnnxEmbedder

    with tempfile.TemporaryDirectory() as empty:
        embedder = OnnxEmbedder(cache_dir=empty)
        return timed(lambda: embedder.embed_batch(["warm"]))[0]


def quality_rows(variant: str, embedder, nodes, questions, quality: dict) -> list[Row]:
    """nDCG@10 rows of one variant (``quality`` collects them; torch's come first)."""
    vectors = node_vectors(variant, embedder, nodes, compute=variant != ONNX_FP32)
    if vectors is None:  # ~7 CPU-minutes for figures the cosine row already settles
        return [Row(GROUP, f"nDCG@10, {variant}", None,
                    note="not re-run: its vectors are torch's (see the cosine row)")]
    quality[variant] = ndcg(embedder, nodes, vectors, questions)
    rows = []
    for mode, value in quality[variant].items():
        target, ok = "", None
        if variant != TORCH:
            target, ok = f">= torch - {QUALITY_DROP}", quality[TORCH][mode] - value <= QUALITY_DROP
        rows.append(Row(GROUP, f"nDCG@10 {mode}, {variant}", value, target=target, ok=ok,
                        note=f"{len(nodes):,} nodes, "
                             f"{sum(q.answerable for q in questions)} questions"))
    return rows


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row]:
    questions, nodes = benchmark_nodes(corpus or corpus_dir())
    count = SPEED_CHUNKS // 4 if quick else SPEED_CHUNKS
    sample = nodes[:: max(1, len(nodes) // count)][:count]
    rows: list[Row] = []
    reference = None
    quality: dict[str, dict[str, float]] = {}
    for variant in (TORCH, ONNX_FP32, ONNX_INT8):
        embedder = make_embedder(variant)
        variant_rows, vectors = speed_rows(variant, embedder, sample, reference)
        rows += variant_rows
        reference = vectors if reference is None else reference
        rows.append(Row(GROUP, f"cold start to first query vector, {variant}",
                        cold_start(variant), "s", note="fresh process, export cached"))
        rows += quality_rows(variant, embedder, nodes, questions, quality)
    if not quick:
        rows.append(Row(GROUP, "ONNX export into an empty cache (once per machine)",
                        export_seconds(), "s", note="float32 export and int8 quantisation"))
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table(run()))
