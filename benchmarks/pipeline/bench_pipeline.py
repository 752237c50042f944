"""Pipeline benchmarks on the real corpus: load, split, embed (vs bare encode), persist.

- load: ``SimpleDirectoryReader`` over the whole corpus (recursive), MB of files per second;
- split: ``SentenceSplitter`` at chunk_size=512/overlap=50 (LlamaIndex's measured setting, about
  0.5 MB/s on this machine) and at our default, MB of text per second;
- embed: a fixed sample of chunks indexed by ``VectorStoreIndex`` (our whole ingestion path:
  metadata header, ordering, batching, store) next to a bare ``SentenceTransformer.encode`` of
  the same texts with the same batch size (framework overhead as a ratio);
- persist: the sample index written to disk, seconds and bytes per node;
- end to end: corpus text files ingested into a new workspace (read, split, embed, saved in
  batches) next to a bare encode of the very chunks it embedded.
"""

from __future__ import annotations

import random
import sys
import tempfile
from pathlib import Path

from benchmarks.harness import Row, timed, timed_cpu

LLAMAINDEX_SPLIT_MB_S = 0.5  # LlamaIndex SentenceSplitter, chunk_size=512, overlap=50 (seeds)
SPLIT_TARGET_MB_S = 10 * LLAMAINDEX_SPLIT_MB_S


def _text_mb(documents) -> float:
    return sum(len(d.text.encode("utf-8")) for d in documents) / 1e6


def load_corpus(corpus: Path, *, quick: bool):
    from ragcore.readers import SimpleDirectoryReader

    reader = SimpleDirectoryReader(input_dir=corpus, recursive=True)
    files = reader.iter_files()
    if quick:
        files = files[::4]  # every fourth file: all formats, a quarter of the bytes
        reader = SimpleDirectoryReader(input_files=files)
    file_mb = sum(p.stat().st_size for p in files) / 1e6
    seconds, documents = timed(reader.load_data)
    rows = [
        Row("pipeline", "load corpus", seconds, "s",
            note=f"{len(files)} files, {file_mb:.1f} MB, {len(documents)} documents, "
                 f"{len(reader.failures)} failed"),
        Row("pipeline", "load throughput", file_mb / seconds, "MB/s"),
    ]
    return documents, rows


def split_rows(documents) -> tuple[list, list[Row]]:
    from ragcore.chunking import DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE, SentenceSplitter
    from ragcore.tokens import count_tokens

    count_tokens("warm up the tokenizer")  # loading it is not splitting
    mb = _text_mb(documents)
    rows: list[Row] = []
    default_nodes: list = []
    for size, overlap in ((512, 50), (DEFAULT_CHUNK_SIZE, DEFAULT_CHUNK_OVERLAP)):
        splitter = SentenceSplitter(chunk_size=size, chunk_overlap=overlap)
        seconds, nodes = timed(lambda s=splitter: s.get_nodes_from_documents(documents))
        rate = mb / seconds
        target = f">= {SPLIT_TARGET_MB_S:g} MB/s (10x LlamaIndex)" if size == 512 else ""
        rows.append(Row("pipeline", f"split {size}/{overlap}", rate, "MB/s", target,
                        rate >= SPLIT_TARGET_MB_S if target else None,
                        note=f"{mb:.1f} MB text -> {len(nodes):,} nodes in {seconds:.1f} s"))
        default_nodes = nodes
    return default_nodes, rows


def embed_rows(nodes, *, sample_size: int) -> tuple[object, list[Row]]:
    """Index a fixed sample with our path, and bare-encode the same texts; best of three each."""
    from ragcore.embeddings import default_embedder
    from ragcore.index import VectorStoreIndex
    from ragcore.types import MetadataMode

    sample = random.Random(0).sample(nodes, min(sample_size, len(nodes)))
    texts = [n.content(MetadataMode.EMBED) for n in sample]
    embedder = default_embedder()
    load_s, _ = timed(lambda: embedder.embed_batch(texts[:16]))  # model load + warm-up
    model = embedder._load()

    def bare() -> None:
        if hasattr(model, "encode"):  # sentence-transformers: its own encode loop
            model.encode(texts, batch_size=embedder.batch_size, normalize_embeddings=True,
                         convert_to_numpy=True, show_progress_bar=False)
        else:  # ONNX: tokenizer + session runs are the whole embedder, nothing of ours
            embedder.embed_batch(texts)

    def ours():
        return VectorStoreIndex(sample, embedder=embedder)

    bare_s, ours_s, bare_cpu, ours_cpu, index = [], [], [], [], None
    for _ in range(3):  # alternate so drift in machine load hits both sides alike
        wall, cpu, _ = timed_cpu(bare)
        bare_s.append(wall)
        bare_cpu.append(cpu)
        wall, cpu, index = timed_cpu(ours)
        ours_s.append(wall)
        ours_cpu.append(cpu)
    ratio = min(ours_s) / min(bare_s)
    cpu_ratio = min(ours_cpu) / min(bare_cpu)
    return index, [
        Row("pipeline", "embedding model load + warm-up", load_s, "s"),
        Row("pipeline", f"index {len(sample)} chunks (embed + store)", min(ours_s), "s",
            note=f"{len(sample) / min(ours_s):.0f} chunks/s"),
        Row("pipeline", f"bare encode {len(sample)} chunks", min(bare_s), "s"),
        Row("pipeline", "ingestion / bare encode (wall)", ratio, "x", "<= 1.05x", ratio <= 1.05),
        Row("pipeline", "ingestion / bare encode (CPU time)", cpu_ratio, "x", "<= 1.05x",
            cpu_ratio <= 1.05, note="less disturbed by other processes"),
    ]


def end_to_end_rows(corpus: Path, *, chunks: int) -> list[Row]:
    """``Workspace.ingest`` of text files (about ``chunks`` chunks) against a bare encode of
    the texts it embedded, with the same embedder: what reading, splitting, batching, the
    store and the saves cost on top of the model."""
    from ragcore.embeddings import default_embedder
    from ragcore.types import MetadataMode
    from ragcore.workspace import Workspace

    files, size = [], 0
    for path in sorted(corpus.rglob("*.txt")):
        files.append(path)
        size += path.stat().st_size
        if size > chunks * 700:  # about 700 bytes of text per default chunk
            break
    embedder = default_embedder()
    embedder.embed_batch(["warm up the model"])
    with tempfile.TemporaryDirectory(prefix="ragcore-bench-") as tmp:
        ws = Workspace(Path(tmp) / "ws", embedder=embedder)
        wall, cpu, report = timed_cpu(lambda: ws.ingest("e2e", files))
        texts = [n.content(MetadataMode.EMBED) for n in ws.load_index("e2e").all_nodes()]
    bare_wall, bare_cpu, _ = timed_cpu(lambda: embedder.embed_batch(texts))
    return [
        Row("pipeline", f"end to end: ingest {len(files)} text files", wall, "s",
            note=f"{len(texts)} chunks, {report.commits} saves"),
        Row("pipeline", "end to end / bare encode of its chunks (wall)", wall / bare_wall, "x",
            "<= 1.10x", wall / bare_wall <= 1.10),
        Row("pipeline", "end to end / bare encode of its chunks (CPU time)", cpu / bare_cpu,
            "x", "<= 1.10x", cpu / bare_cpu <= 1.10, note="less disturbed by other processes"),
    ]


def persist_rows(index) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="ragcore-bench-") as tmp:
        folder = Path(tmp) / "sample"
        seconds, _ = timed(lambda: index.persist(folder))
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
    return [
        Row("persist", f"persist {len(index)}-node real index", seconds, "s"),
        Row("persist", "bytes on disk per real node", size / max(len(index), 1), "B",
            note="text + metadata + 384-d float32 vector"),
    ]


def run(*, quick: bool = False, corpus: Path) -> list[Row]:
    documents, rows = load_corpus(corpus, quick=quick)
    sys.stderr.write(f"  loaded {len(documents)} documents\n")
    nodes, more = split_rows(documents)
    rows += more
    sys.stderr.write(f"  split into {len(nodes):,} nodes; embedding a sample ...\n")
    index, more = embed_rows(nodes, sample_size=256 if quick else 1000)
    rows += more
    rows += persist_rows(index)
    rows += end_to_end_rows(corpus, chunks=256 if quick else 1000)
    return rows
