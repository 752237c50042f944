"""Drills on an index folder shared by processes: a writer re-persisting two versions, readers
loading and querying, writers killed mid-persist. Run by tests/test_index_drills.py as separate
processes (``python tests/index_drill.py writer|reader PATH SECONDS``) and usable by hand.

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
    counts = {"loads": 0, "failed": 0, "mixed": 0, "A": 0, "B": 0, "errors": []}
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        counts["loads"] += 1
        try:
            counts[check_load(path, expected)] += 1
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
    from ragcore.stores import segments

    segments.FACTOR = 2
    index = VectorStoreIndex.load(path, embedder=FakeEmbedder(), splitter=ParagraphSplitter())
    present = [int(d.split("-")[1]) for d in index.ref_doc_ids() if d.startswith("extra-")]
    print("ready", flush=True)
    stop = time.monotonic() + seconds if seconds else float("inf")
    k = max(present, default=-1) + 1
    while time.monotonic() < stop:
        index.insert(extra(k))
        if k % 3 == 2:
            index.delete_ref_doc(f"extra-{k - 2}")
        index.persist(path)
        index.merge_segments(path)  # the merges an ingestion's merger runs after a commit
        k += 1


def check_appended(path: Path) -> int:
    """Check the index an appender left completely (``verify_index``) and as one of its
    commits: returns that commit's number."""
    from ragcore.index.verify import verify_index

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
    {"writer": writer, "reader": reader, "appender": appender}[role](folder, duration)
