"""The packaged model's variants side by side: texts per CPU-second, agreement with torch, nDCG@10.

Variants (``VARIANTS``): torch float32 (a bare sentence-transformers encode, the reference),
ONNX float32 as torch exported it and fused by onnxruntime's transformer optimizer, ONNX int8
on the exported graph (every MatMul) and on the fused graph (``onnx_derived``: the default for
new indexes, ``packaged``). Printed as one table (stderr) and as rows:

- texts per CPU-second on chunks of 200 and 512 word pieces (``embedder_speed``: 32 chunks each,
  16 in a quick run; rounds interleaved; CPU seconds of this process), and the ratio of CPU time
  to torch's (target for the default: <= 0.6);
- cosine with torch's vectors on the same chunks (mean and minimum);
- nDCG@10 of dense ("similarity") and default ("hybrid") retrieval over the answerable questions
  of ``benchmarks/answers``, each variant embedding every node of the retrieval benchmark's
  index and every question itself. Target: within 0.005 of torch. Node vectors are cached in
  ``benchmarks/.cache/embedders/`` by variant and a digest of the node texts and the recipe
  versions: the first run on a machine embeds the 5,592 nodes once per variant (torch ~8
  CPU-minutes), later runs take about a minute. A quick run scores only cached variants;
- cold start: a fresh process importing ragcore and embedding one question (export cached).

    python -m benchmarks --only embedders
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path
from statistics import fmean

import numpy as np

from benchmarks.answers.report import cell, format_matrix
from benchmarks.embedding.embedder_speed import cpu_seconds_interleaved, token_chunks
from benchmarks.harness import Row, corpus_dir
from ragcore.embeddings.onnx.derived import DERIVED_VERSION
from ragcore.embeddings.onnx.export import EXPORT_VERSION

GROUP = "embedders"
VECTOR_CACHE = Path(__file__).resolve().parents[1] / ".cache" / "embedders"
TORCH = "torch float32"
# label -> OnnxEmbedder options (torch has none)
VARIANTS: dict[str, dict | None] = {
    TORCH: None,
    "ONNX float32, exported": {"fused": False},
    "ONNX float32, fused": {},
    "ONNX int8, exported": {"quantized": True, "fused": False},
    "ONNX int8, fused (default)": {"quantized": True},
}
DEFAULT = "ONNX int8, fused (default)"
TOKENS = (200, 512)
QUALITY_DROP = 0.005
SPEED_RATIO = 0.6


def make_embedder(variant: str):
    from ragcore.embeddings import OnnxEmbedder, SentenceTransformerEmbedder

    options = VARIANTS[variant]
    return SentenceTransformerEmbedder() if options is None else OnnxEmbedder(**options)


def benchmark_nodes():
    """The questions, and the nodes of the retrieval benchmark's cached index (the newest one
    in ``benchmarks/.cache``), else of its files split the default way (embedding nothing)."""
    from benchmarks.answers.corpus_index import CACHE_DIR, question_files
    from benchmarks.answers.question_set import load_questions
    from ragcore import SentenceSplitter, SimpleDirectoryReader, VectorStoreIndex

    questions = load_questions()
    cached = sorted(CACHE_DIR.glob("answers-index-*"), key=lambda p: p.stat().st_mtime)
    if cached:
        return questions, list(VectorStoreIndex.load(cached[-1]).all_nodes())
    files = question_files(questions, corpus_dir())
    documents = SimpleDirectoryReader(input_files=files).load_data()
    return questions, SentenceSplitter().get_nodes_from_documents(documents)


def node_vectors(variant: str, embedder, nodes, *, compute: bool) -> np.ndarray | None:
    """Every node's vector from ``variant``, cached by the node texts (None: not cached and
    not ``compute``)."""
    from ragcore.embeddings.base import embed_nodes

    digest = hashlib.sha256(f"export {EXPORT_VERSION} derived {DERIVED_VERSION}".encode())
    for node in nodes:
        digest.update(node.text.encode() + b"\0")
    slug = variant.replace(" ", "-").replace(",", "").replace("(", "").replace(")", "")
    path = VECTOR_CACHE / f"{slug}-{digest.hexdigest()[:16]}.npy"
    if path.is_file():
        return np.load(path, allow_pickle=False)
    if not compute:
        return None
    sys.stderr.write(f"  {variant}: embedding {len(nodes):,} nodes (cached afterwards)\n")
    vectors = embed_nodes(embedder, nodes)
    VECTOR_CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors, allow_pickle=False)
    return vectors


def ndcg(embedder, nodes, vectors, questions) -> dict[str, float]:
    """nDCG@10 of similarity and hybrid retrieval over an in-memory index of these vectors."""
    from benchmarks.retrieval.bench_retrieval import relevant_totals, score_mode
    from ragcore import VectorStoreIndex
    from ragcore.stores.simple.store import SimpleVectorStore

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
            "from benchmarks.embedding.embedders import make_embedder;"
            f"make_embedder({variant!r}).embed_batch(['How do I open a file?']);"
            "print(time.perf_counter() - t)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    return float(out.stdout.strip().splitlines()[-1])


def speed(embedders: dict, corpus: Path, count: int) -> dict[int, dict]:
    """Per token count: texts per CPU-second, CPU-time ratio to torch, cosine with torch."""
    tokenizer_file = embedders[DEFAULT].model_path / "tokenizer.json"
    figures: dict[int, dict] = {}
    for tokens in TOKENS:
        texts = token_chunks(corpus, tokenizer_file, tokens, count)
        calls = {name: embedder.embed_batch for name, embedder in embedders.items()}
        spent, vectors = cpu_seconds_interleaved(calls, texts, rounds=2)
        figures[tokens] = {
            name: {"per_cpu_s": 2 * len(texts) / spent[name], "ratio": spent[name] / spent[TORCH],
                   "cosine": np.einsum("ij,ij->i", vectors[name], vectors[TORCH])}
            for name in embedders}
    return figures


def quality(embedders: dict, *, quick: bool) -> dict[str, dict[str, float] | None]:
    """nDCG@10 per variant (None: its node vectors are not cached and this is a quick run)."""
    questions, nodes = benchmark_nodes()
    result: dict[str, dict[str, float] | None] = {}
    for name, embedder in embedders.items():
        vectors = node_vectors(name, embedder, nodes, compute=not quick)
        result[name] = None if vectors is None else ndcg(embedder, nodes, vectors, questions)
    return result


def table(figures: dict[int, dict], scores: dict) -> str:
    """The variants side by side (what docs/embedder.md shows)."""
    header = ["variant"] + [f"texts/CPU-s {t}" for t in TOKENS] + [
        f"CPU vs torch {t}" for t in TOKENS] + ["cosine min", "nDCG@10 dense", "nDCG@10 hybrid"]
    lines = []
    for name in VARIANTS:
        ndcgs = scores.get(name) or {}
        lines.append([name] + [f"{figures[t][name]['per_cpu_s']:.1f}" for t in TOKENS] + [
            f"{figures[t][name]['ratio']:.2f}x" for t in TOKENS] + [
            f"{min(figures[t][name]['cosine'].min() for t in TOKENS):.4f}",
            cell(ndcgs.get("similarity")), cell(ndcgs.get("hybrid"))])
    return format_matrix("Embedder variants (CPU seconds of this process; torch = 1.00x)",
                         header, lines)


def rows_of(name: str, figures: dict[int, dict], scores: dict) -> list[Row]:
    rows = []
    for tokens in TOKENS:
        figure = figures[tokens][name]
        target = f"<= {SPEED_RATIO}x torch" if name == DEFAULT else ""
        ok = figure["ratio"] <= SPEED_RATIO if name == DEFAULT else None
        cosine = figure["cosine"]
        rows.append(Row(GROUP, f"texts per CPU-second, {tokens} tokens, {name}",
                        figure["per_cpu_s"], "texts/CPU-s", target=target, ok=ok,
                        note=f"{figure['ratio']:.2f}x torch's CPU time; cosine with torch "
                             f"mean {cosine.mean():.5f}, min {cosine.min():.5f}"))
    for mode, value in (scores.get(name) or {"similarity": None}).items():
        target, ok = "", None
        if name != TORCH and value is not None and scores.get(TORCH):
            target = f">= torch - {QUALITY_DROP}"
            ok = scores[TORCH][mode] - value <= QUALITY_DROP
        rows.append(Row(GROUP, f"nDCG@10 {mode}, {name}", value, target=target, ok=ok,
                        note="" if value is not None else "node vectors not cached: full run"))
    return rows


def run(*, quick: bool = False, corpus: Path | None = None) -> list[Row]:
    embedders = {name: make_embedder(name) for name in VARIANTS}
    figures = speed(embedders, corpus or corpus_dir(), 16 if quick else 32)
    scores = quality(embedders, quick=quick)
    sys.stderr.write("\n" + table(figures, scores) + "\n\n")
    rows = [row for name in VARIANTS for row in rows_of(name, figures, scores)]
    for name in (TORCH, DEFAULT):
        rows.append(Row(GROUP, f"cold start to first query vector, {name}", cold_start(name), "s",
                        note="fresh process, export cached"))
    return rows


if __name__ == "__main__":
    from benchmarks.harness import format_table

    print(format_table(run()))
