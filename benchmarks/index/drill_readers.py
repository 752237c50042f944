"""Drill: readers load, check and search an index while a writer keeps committing to it.

    python -m benchmarks.index.drill_readers --minutes 10
    python -m benchmarks.index.drill_readers --persists 300

One writer process commits small changes again and again (each commit adds a batch of
``BATCH`` documents and deletes the batch ``KEEP`` commits back; every ``MERGE_EVERY`` commits it
also runs the segment merges due, as an ingestion does, three segments of a tier making one), and each commit removes the generations
no reader holds. Two reader processes load the index in a loop, check that it is one commit's
whole state (the base documents and exactly the batches of one commit, each complete), wait a
moment (the writer publishes meanwhile) and then search it: keyword and hybrid queries for the
newest and oldest batch, whose hits must be exactly that batch's nodes. The keyword postings
are read on the first keyword query, the moment a reader used to lose them.

Prints the counts (persists, loads, failed loads, failed queries, mixed results, keyword
postings rebuilt because their files were gone) and the disk use at the end: the index folder's
bytes (each file once, however many generations link it), the generations left, and after one
more load (which removes what no reader holds) the generations and bytes left, beside the bytes
of the same index persisted once into a new folder.
``tests/test_drill_readers.py`` runs it small. No model: ``FakeEmbedder``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from ragcore.chunking.sentence import SentenceSplitter
from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document

BASE_DOCS = 40
BATCH = 4  # documents a commit adds
KEEP = 6  # batches the index holds: commit k deletes batch k - KEEP
MERGE_EVERY = 5
READERS = 2
ROOT = Path(__file__).resolve().parents[2]


class Mixed(Exception):
    """A load or a search that is no one commit's state."""


def _embedder() -> FakeEmbedder:
    return FakeEmbedder(dim=256)  # few hash collisions between the drill's words


def _splitter() -> SentenceSplitter:
    return SentenceSplitter(chunk_size=64, chunk_overlap=8)


def _open(path: Path) -> VectorStoreIndex:
    return VectorStoreIndex.load(path, embedder=_embedder(), splitter=_splitter())


def base_documents() -> list[Document]:
    return [Document(text=f"Base document {d} about rivers, hills and the weather. " * 6,
                     doc_id=f"base-{d}") for d in range(BASE_DOCS)]


def batch_documents(k: int) -> list[Document]:
    """Commit ``k``'s documents: each holds the batch's own word ``batch{k}token``."""
    return [Document(text=f"Batch {k} note {i}: batch{k}token appears here with ink and paper. "
                          f"Another sentence of note {i} so that the text is longer.",
                     doc_id=f"batch-{k}-{i}") for i in range(BATCH)]


def batches_after(k: int) -> set[int]:
    """The batches the index holds after commit ``k`` (-1: none yet)."""
    return set(range(max(0, k - KEEP + 1), k + 1))


def build(path: Path) -> None:
    """The index the drill starts from: the base documents, persisted at ``path``."""
    VectorStoreIndex.from_documents(base_documents(), embedder=_embedder(),
                                    splitter=_splitter()).persist(path)


# -- the writer ----------------------------------------------------------------------------


def write(path: Path, *, persists: int, seconds: float) -> dict[str, int]:
    """Commit batch after batch until ``persists`` commits or ``seconds`` (0: no limit)."""
    from ragcore.stores.simple import segments

    segments.FACTOR = 3  # merges every few commits (10 would need hundreds of small segments)
    index = _open(path)
    stop = time.monotonic() + seconds if seconds else float("inf")
    count = merges = 0
    while (not persists or count < persists) and time.monotonic() < stop:
        for document in batch_documents(count):
            index.insert(document)
        for i in range(BATCH) if count >= KEEP else ():
            index.delete_ref_doc(f"batch-{count - KEEP}-{i}")
        index.persist(path)
        count += 1
        if count % MERGE_EVERY == 0:
            merges += bool(index.merge_segments(path))
    return {"persists": count, "merges": merges}


# -- a reader ------------------------------------------------------------------------------


def check_load(index: VectorStoreIndex) -> int:
    """Which commit ``index`` wholly is (-1: none yet); Mixed if it is no commit's."""
    docs = index.ref_doc_ids()
    base = {d for d in docs if d.startswith("base-")}
    found: dict[int, int] = {}
    for d in docs:
        if d.startswith("batch-"):
            k = int(d.split("-")[1])
            found[k] = found.get(k, 0) + 1
    last = max(found, default=-1)
    if len(base) != BASE_DOCS or set(found) != batches_after(last) or any(
        n != BATCH for n in found.values()
    ):
        raise Mixed(f"{len(base)} base documents and batches {sorted(found.items())}")
    return last


def check_search(index: VectorStoreIndex, k: int) -> None:
    """Keyword and hybrid searches for batch ``k``'s word find exactly its nodes."""
    want = {n.node_id for i in range(BATCH) for n in index.nodes_for_doc(f"batch-{k}-{i}")}
    keyword = {hit.node.node_id for hit in index.keyword_search(f"batch{k}token", top_k=50)}
    if keyword != want:
        raise Mixed(f"keyword search for batch {k}: {len(keyword & want)} of its {len(want)} "
                    f"nodes, {len(keyword - want)} others")
    # Fusion may rank other batches' notes beside this one: the batch must be among the hits,
    # and every hit one of this index's nodes as loaded.
    hybrid = index.as_retriever(mode="hybrid", similarity_top_k=2 * len(want)).retrieve(
        f"batch{k}token ink paper note")
    if not want & {h.node.node_id for h in hybrid} or any(
        h.node.node_id not in index or index.get_node(h.node.node_id).text != h.node.text
        for h in hybrid
    ):
        raise Mixed(f"hybrid search for batch {k}: hits from {[h.node.ref_doc_id for h in hybrid]}")


class _Rebuilds(logging.Handler):
    """Counts the keyword postings a reader had to rebuild (their files were gone)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += "building the keyword postings" in record.getMessage()


def read(path: Path, stop_file: Path, *, pause: float) -> dict[str, Any]:
    """Load, check, pause up to ``pause`` seconds and search, until ``stop_file`` exists."""
    rebuilds = _Rebuilds()
    logger = logging.getLogger("ragcore.index.keyword_parts")
    logger.addHandler(rebuilds)
    logger.setLevel(logging.INFO)
    counts: dict[str, Any] = {"loads": 0, "queries": 0, "failed_loads": 0,
                              "failed_queries": 0, "mixed": 0, "errors": []}
    rng = random.Random(os.getpid())
    while not stop_file.exists():
        counts["loads"] += 1
        try:
            index = _open(path)
            last = check_load(index)
        except Mixed as exc:
            _count(counts, "mixed", f"mixed load: {exc}")
            continue
        except Exception as exc:  # the drill counts every failure, whatever it is
            _count(counts, "failed_loads", f"load: {type(exc).__name__}: {exc}")
            continue
        time.sleep(rng.uniform(0, pause))  # the writer publishes, and removes this generation
        for k in {last, min(batches_after(last), default=last)} - {-1}:
            counts["queries"] += 2
            try:
                check_search(index, k)
            except Mixed as exc:
                _count(counts, "mixed", f"mixed search: {exc}")
            except Exception as exc:
                _count(counts, "failed_queries", f"query: {type(exc).__name__}: {exc}")
    counts["rebuilt_postings"] = rebuilds.count
    counts["errors"] = counts["errors"][:5]
    return counts


def _count(counts: dict[str, Any], key: str, error: str) -> None:
    counts[key] += 1
    counts["errors"].append(error)


# -- the drill -----------------------------------------------------------------------------


def run(path: Path, *, persists: int = 0, seconds: float = 0, pause: float = 0.03
        ) -> dict[str, Any]:
    """Build the index at ``path``, run a writer and ``READERS`` readers on it, and return the
    counts and the disk use."""
    build(path)
    stop_file = path.parent / f".{path.name}.drill-stop"
    stop_file.unlink(missing_ok=True)
    common = ["--path", str(path), "--stop-file", str(stop_file), "--pause", str(pause)]
    readers = [_start(["--role", "reader", *common]) for _ in range(READERS)]
    writer = _start(["--role", "writer", *common, "--persists", str(persists),
                     "--seconds", str(seconds)])
    try:
        wrote = _result(writer)
    finally:
        stop_file.touch()
    read_counts = [_result(proc) for proc in readers]
    stop_file.unlink(missing_ok=True)
    totals = {key: sum(r[key] for r in read_counts)
              for key in ("loads", "queries", "failed_loads", "failed_queries", "mixed",
                          "rebuilt_postings")}
    disk = {"bytes": folder_bytes(path), "generations": generations(path)}
    final = _open(path)  # a load removes what no reader holds any more
    disk |= {"bytes_after_load": folder_bytes(path), "generations_after_load": generations(path)}
    final.persist(path.parent / "fresh")  # the same index written once, for scale
    disk["bytes_fresh"] = folder_bytes(path.parent / "fresh")
    errors = [e for r in read_counts for e in r["errors"]][:10]
    return {**wrote, **totals, **disk, "errors": errors}


def _start(args: list[str]) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "benchmarks.index.drill_readers", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _result(proc: subprocess.Popen) -> dict[str, Any]:
    out, err = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"a drill process failed ({proc.returncode}): {err[-2000:]}")
    return json.loads(out.strip().splitlines()[-1])


def folder_bytes(path: Path) -> int:
    """Bytes of the files under ``path``, each file once however many links it has."""
    seen: dict[int, int] = {}
    for root, _, files in os.walk(path):
        for name in files:
            try:
                stat = os.stat(Path(root) / name)
            except FileNotFoundError:
                continue
            seen[stat.st_ino] = stat.st_size
    return sum(seen.values())


def generations(path: Path) -> int:
    return sum(1 for child in path.iterdir() if child.name.startswith("gen-"))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=0.0)
    parser.add_argument("--persists", type=int, default=0)
    parser.add_argument("--pause", type=float, default=0.03,
                        help="longest wait between a reader's load and its searches (s)")
    parser.add_argument("--under", type=Path, default=None,
                        help="the folder to make the index in (default: the system's temp "
                             "folder; /dev/shm makes fsync nearly free)")
    parser.add_argument("--role", choices=("drill", "writer", "reader"), default="drill")
    parser.add_argument("--path", type=Path)
    parser.add_argument("--stop-file", type=Path)
    parser.add_argument("--seconds", type=float, default=0.0)
    args = parser.parse_args(argv)
    if args.role == "writer":
        print(json.dumps(write(args.path, persists=args.persists, seconds=args.seconds)))
    elif args.role == "reader":
        print(json.dumps(read(args.path, args.stop_file, pause=args.pause)))
    else:
        if not args.minutes and not args.persists:
            parser.error("give --minutes or --persists")
        with tempfile.TemporaryDirectory(prefix="drill-readers-", dir=args.under) as tmp:
            counts = run(Path(tmp) / "index", persists=args.persists,
                         seconds=args.minutes * 60, pause=args.pause)
        print(json.dumps(counts, indent=2))


if __name__ == "__main__":
    main()
