"""Drills on an index folder shared by processes: a writer re-persisting two versions, readers
loading and querying, writers killed mid-persist. Run by tests/test_index_drills.py as separate
processes (``python tests/support/index_drill.py writer|reader PATH SECONDS``) and usable by hand; the
merger's drills (tests/test_merge_drills.py) use the roles ``merging``, ``appended_reader``,
``merge-writing`` and ``merge-installing``.

Versions A and B have the same documents, node ids and node counts; everything else differs:
each document's metadata, each node's text, each row's store metadata and each vector. A load is
*mixed* unless every one of those comes from one version; ``check_load`` says which it was.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

try:
    from support.store_fakes import ParagraphSplitter
except ImportError:  # run as a script: this folder is on the path, tests/ (and its ragcore/) not
    from store_fakes import ParagraphSplitter

from ragcore.embeddings import FakeEmbedder
from ragcore.index import VectorStoreIndex
from ragcore.types import Document

DOCS, PARTS = 120, 5
WORDS = {"A": "alpha apple amber anchor arrow", "B": "beta berry bronze bridge bottle"}


class MixedLoad(Exception):
    """A load that holds parts of both versions."""


def documents(version: str) -> list[Document]:
    words = WORDS[version]
    return [
        Document(
            text="\n\n".join(f"{version} doc {d} part {p} {words} {words}" for p in range(PARTS)),
            doc_id=f"doc-{d}",
            metadata={"version": version, "doc": d},
        )
        for d in range(DOCS)
    ]


def build(version: str) -> VectorStoreIndex:
    return VectorStoreIndex.from_documents(
        documents(version), embedder=FakeEmbedder(), splitter=ParagraphSplitter()
    )


def expected_vectors() -> dict[str, tuple[list[str], np.ndarray]]:
    """Each version's node ids (in docstore order) and vectors."""
    out = {}
    for version in WORDS:
        index = build(version)
        ids = index.node_ids()
        out[version] = (ids, index.get_vectors(ids))
    return out


def check_load(path: Path, expected: dict[str, tuple[list[str], np.ndarray]]) -> str:
    """Load the index at ``path``, query it, and say which version it wholly is."""
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    seen = {index.doc_info(d).metadata["version"] for d in index.ref_doc_ids()}
    ids = index.node_ids()
    seen |= {node.text.split()[0] for node in index.all_nodes()}
    seen |= {index.store.metadata(i)["version"] for i in ids}
    vectors = index.get_vectors(ids)
    for version, (want_ids, want) in expected.items():
        if ids == want_ids and np.allclose(vectors, want, atol=1e-6):
            seen.add(version)
            break
    else:
        seen.add("vectors of neither version")
    hits = index.search(FakeEmbedder().embed_batch(["alpha beta part 3"])[0], top_k=5)
    seen |= {hit.node.text.split()[0] for hit in hits}
    if len(seen) != 1 or len(index) != DOCS * PARTS:
        raise MixedLoad(f"{len(index)} nodes, parts from {sorted(seen)}")
    return seen.pop()


def writer(path: Path, seconds: float) -> None:
    """Persist A and B in turn to ``path`` for ``seconds`` (forever if 0); prints 'ready'."""
    indexes = {v: build(v) for v in WORDS}
    print("ready", flush=True)
    stop = time.monotonic() + seconds if seconds else float("inf")
    count = 0
    while time.monotonic() < stop:
        indexes["AB"[count % 2]].persist(path)
        count += 1
    print(json.dumps({"persists": count}), flush=True)


def reader(path: Path, seconds: float) -> None:
    """Load and query ``path`` in a loop for ``seconds``; prints the counts as JSON."""
    expected = expected_vectors()
    read_in_loop(seconds, lambda: check_load(path, expected), {"A": 0, "B": 0})


def read_in_loop(seconds: float, check, outcomes: dict) -> None:
    """Run ``check`` (a load; it names its outcome, or None) in a loop for ``seconds``; prints
    the loads, failures, mixed loads and outcomes as JSON."""
    counts = {"loads": 0, "failed": 0, "mixed": 0, **outcomes, "errors": []}
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        counts["loads"] += 1
        try:
            outcome = check()
            if outcome in outcomes:
                counts[outcome] += 1
        except MixedLoad as exc:
            counts["mixed"] += 1
            counts["errors"].append(f"mixed: {exc}")
        except Exception as exc:  # the drill counts every failure, whatever it is
            counts["failed"] += 1
            counts["errors"].append(f"{type(exc).__name__}: {exc}")
    counts["errors"] = counts["errors"][:5]
    print(json.dumps(counts), flush=True)


def extra(k: int) -> Document:
    """The ``k``-th document an appender adds."""
    return Document(text=f"extra {k} first part\n\nextra {k} second part", doc_id=f"extra-{k}",
                    metadata={"extra": k})


def appended(k: int) -> set[int]:
    """The extra documents present after the appender's commit ``k`` (-1: none yet): every
    third commit also deletes the document added two commits before."""
    return {j for j in range(k + 1)} - {j - 2 for j in range(k + 1) if j % 3 == 2}


def appender(path: Path, seconds: float) -> None:
    """Add and delete documents one commit at a time, merging segments often (FACTOR 2)."""
    from ragcore.stores.simple import segments

    segments.FACTOR = 2
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    present = [int(d.split("-")[1]) for d in index.ref_doc_ids() if d.startswith("extra-")]
    print("ready", flush=True)
    stop = time.monotonic() + seconds if seconds else float("inf")
    k = max(present, default=-1) + 1
    while time.monotonic() < stop:
        append(index, path, k)
        index.merge_segments(path)  # the merges an ingestion's merger runs after a commit
        k += 1


def append(index: VectorStoreIndex, path: Path, k: int) -> None:
    """The appender's commit ``k``: add a document, every third time delete an earlier one."""
    index.insert(extra(k))
    if k % 3 == 2:
        index.delete_ref_doc(f"extra-{k - 2}")
    index.persist(path)


def merging(path: Path, seconds: float) -> None:
    """The appender, its merges run by a ``BackgroundMerger`` (a thread) after each commit, as
    an ingestion runs them; prints the commits and merges made. Deletes stay marked in the
    segments (``EXPUNGE``), and each merge writes for 50 ms more, as a big one would: commits
    and deletes land while it writes."""
    from ragcore.index.disk import merger as merging_module
    from ragcore.index.disk.merger import BackgroundMerger
    from ragcore.stores.simple import segments

    segments.FACTOR, segments.EXPUNGE = 2, 0.9
    real_write = merging_module.write_merge

    def slow_write(plan, folder, index):
        real_write(plan, folder, index)
        time.sleep(0.05)

    merging_module.write_merge = slow_write
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    merger = BackgroundMerger(index, path)
    present = [int(d.split("-")[1]) for d in index.ref_doc_ids() if d.startswith("extra-")]
    print("ready", flush=True)
    stop = time.monotonic() + seconds if seconds else float("inf")
    k = first = max(present, default=-1) + 1
    while time.monotonic() < stop:
        append(index, path, k)
        merger.start()
        k += 1
    merger.wait()
    print(json.dumps({"commits": k - first, "merges": merger.merges,
                      "error": str(merger.error or "")}), flush=True)


def merge_stopped(path: Path, at: str) -> None:
    """Two appender commits (a tier due), then a merge that stops ``at`` "writing" (its
    segments written, nothing installed) or "installing" (installed in memory, its commit's
    generation being written), says so and waits there to be killed."""
    from ragcore.index.disk import merger
    from ragcore.stores.simple import segments

    segments.FACTOR = 2
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    for k in range(2):
        append(index, path, k)
    assert merger.merges_due(index)
    real_write, real_install = merger.write_merge, merger.Install.install

    def write(plan, folder, index):
        real_write(plan, folder, index)
        stopped("writing")

    def install(self):
        real_install(self)
        stopped("installing")

    def stopped(step: str) -> None:
        if step == at:
            print(step, flush=True)
            time.sleep(600)

    merger.write_merge, merger.Install.install = write, install
    print("ready", flush=True)
    index.merge_segments(path)


def appended_reader(path: Path, seconds: float) -> None:
    """Load and check ``path`` as the appender left it (``check_appended``) in a loop."""
    read_in_loop(seconds, lambda: check_appended(path), {})


def check_appended(path: Path) -> int:
    """Check the index an appender left completely (``verify_index``) and as one of its
    commits: returns that commit's number."""
    from ragcore.index.disk.verify import verify_index

    verify_index(path)
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    present = {int(d.split("-")[1]) for d in index.ref_doc_ids() if d.startswith("extra-")}
    last = max(present, default=-1)
    if present != appended(last) or len(index) != DOCS * PARTS + 2 * len(present):
        raise MixedLoad(f"extra documents {sorted(present)} are no commit's")
    for k in present:
        nodes = index.nodes_for_doc(f"extra-{k}")
        alone = VectorStoreIndex.from_documents([extra(k)], embedder=FakeEmbedder(),
                                                splitter=ParagraphSplitter())
        ids = alone.node_ids()
        if [n.text for n in nodes] != [n.text for n in alone.all_nodes()] or not np.allclose(
            index.get_vectors(ids), alone.get_vectors(ids), atol=1e-6
        ):
            raise MixedLoad(f"extra-{k} holds {[n.text for n in nodes]} or other vectors")
    return last


if __name__ == "__main__":
    role, folder, duration = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
    if role.startswith("merge-"):  # merge-writing, merge-installing
        merge_stopped(folder, role.split("-", 1)[1])
    else:
        roles = {"writer": writer, "reader": reader, "appender": appender, "merging": merging,
                 "appended_reader": appended_reader}
        roles[role](folder, duration)
