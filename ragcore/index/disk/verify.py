"""A full check of an index folder: every byte against its checksum, every node, every vector.

Loading checks what is cheap (``checksums``: sizes, small files whole, samples of large ones;
``node_file``: each node's line as it is decoded). ``verify_index`` (``ragcore verify``) reads
everything: every block of every file of the current generation, every node record decoded
(its id against ``node_ids.json``), every node's document (against ``docs.json`` and its vector
row's, ``bindings``), the digests of the id lists, every vector present and finite, and then
the records against one another (``consistency``: what checksums recomputed by a forger or a
buggy writer would not catch), and, with the index's model, vectors against their texts
embedded again: every node's, or a sample of bounded size (``vector_sample``). It raises
an ``IndexFormatError`` naming the file at fault and the fix at the first damage found, or
returns what it checked, with how each big segment is searched (its approximate index's recall
as measured when it was built; an index saved before ragcore measured them is measured now).
"""

from __future__ import annotations

import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any
from pathlib import Path

import numpy as np

from ...errors import EmbeddingError, PersistError, StoreError
from .bindings import check_vector_documents
from .checksums import damaged
from .consistency import record_problems, summary, vector_problems
from .folder import open_index_folder
from .generations import Superseded, reading
from .vector_sample import sample_nodes
from ..state import IndexState
from .manifest import (
    MANIFEST, approximate_search, data_folder, manifest_generation, read_manifest,
)

_BATCH = 4096  # vectors fetched per call


@dataclass(frozen=True, slots=True)
class VectorCheck:
    """Which stored vectors were compared with their nodes' texts embedded again."""

    nodes: int  # in the index
    embedded: int = 0  # nodes embedded again (``nodes``: every one)
    suspects: int = 0  # of them, chosen as least like their neighbours (``vector_sample``)
    model: str | None = None
    seconds: float = 0.0  # choosing and embedding them
    skipped: str | None = None  # why no vector was compared, when none was


@dataclass(frozen=True, slots=True)
class VerifyReport:
    """What ``verify_index`` checked and found sound."""

    path: Path
    generation: str | None  # None for a format version 1 folder (no checksums to check)
    revision: int
    documents: int
    nodes: int
    files: int
    bytes: int
    # each big segment's search: recall@10 against exact search, measured (``stores.ann``)
    approximate_search: list[dict[str, Any]] = field(default_factory=list)
    vectors: VectorCheck | None = None


# A writer that replaces the generation being verified this many times in a row wins.
_ATTEMPTS = 5


def verify_index(path: str | Path, *, embedder: Any = None, sample: bool = False) -> VerifyReport:
    """Check the index at ``path`` completely; IndexFormatError at the first damage found
    (records that disagree with one another: all of them). With ``embedder`` (the index's
    model), every node's text is embedded again and compared with its vector; with ``sample``
    too, at most ``vector_sample.SUSPECTS + AT_RANDOM`` nodes' (a model that is not the index's
    or that fails is then reported in ``vectors.skipped``, not raised). A generation a writer
    replaces while it is checked is left for the new one."""
    for _ in range(_ATTEMPTS):
        try:
            return _verify(Path(path), embedder, sample)
        except Superseded:
            continue
    raise PersistError(f"{path} was committed to {_ATTEMPTS} times while it was being verified: "
                       "verify it again when its writers are idle")


def _verify(path: Path, embedder: Any, sample: bool) -> VerifyReport:
    manifest = read_manifest(path)
    state = open_index_folder(path, full_check=True)
    if read_manifest(path) != manifest:  # a writer published meanwhile: which did it load?
        raise Superseded(str(path))
    data = data_folder(path, manifest)  # the generation loaded, not a newer one
    # Everything below may read the generation's files by name: no writer may remove them
    # meanwhile (a folder of format 1 has no generations, so no reader lock).
    with nullcontext() if data == path else reading(data):
        return _check(path, manifest, data, state, embedder, sample)


def _check(path: Path, manifest: dict[str, Any], data: Path, state: IndexState,
           embedder: Any, sample: bool) -> VerifyReport:
    docstore, store = state.docstore, state.store
    for doc_id in docstore.doc_ids():
        for node_id in docstore.doc_node_ids(doc_id):
            node = docstore.get(node_id)  # decodes the line and checks its CRC
            if node.ref_doc_id != doc_id:
                raise damaged(data / "docs.json", f"node {node_id!r} belongs to document "
                              f"{node.ref_doc_id!r} but is listed under {doc_id!r}")
    check_vector_documents(data, docstore, store)  # parses (and so checks) the document ids
    ids = docstore.node_ids()
    if ids and callable(getattr(store, "metadata", None)):
        store.metadata(ids[0])  # SimpleVectorStore: parses (and so checks) the metadata column
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        try:
            vectors = store.get_vectors(batch)
        except StoreError as exc:
            raise damaged(data, f"a node has no vector in the store ({exc})") from exc
        if not np.isfinite(vectors).all():
            raise damaged(data / "vectors.npy", "holds NaN or infinite values")
    problems = record_problems(data, manifest, docstore, store)
    seed = f"{manifest_generation(path, manifest)}:{state.revision}"
    vectors, wrong = _check_vectors(manifest, state, embedder, sample=sample, seed=seed)
    if problems or wrong:
        raise damaged(data, summary(problems + wrong) + _how_found(vectors, wrong))
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    return VerifyReport(
        path=path,
        generation=manifest_generation(path, manifest),
        revision=state.revision,
        documents=docstore.doc_count(),
        nodes=len(docstore),
        files=len(files),
        bytes=sum(r.get("bytes", 0) for r in files.values()) + (path / MANIFEST).stat().st_size,
        approximate_search=approximate_search(store, measure=True),
        vectors=vectors,
    )


def _check_vectors(manifest: dict[str, Any], state: IndexState, embedder: Any, *,
                   sample: bool, seed: str) -> tuple[VectorCheck, list[str]]:
    """Vectors against their texts embedded again: what was checked, and what disagrees."""
    docstore, store = state.docstore, state.store
    nodes = len(docstore)
    if embedder is None:
        return VectorCheck(nodes, skipped="no embedding model was given"), []
    model = embedder.model_name
    built_with = (manifest.get("embed_model") or {}).get("name")
    if sample and built_with and model != built_with:
        return VectorCheck(nodes, skipped=f"the index was built with {built_with!r}, not "
                                          f"{model!r}, so their vectors cannot be compared"), []
    start = time.perf_counter()
    chosen = sample_nodes(docstore, store, seed=seed) if sample else None
    ids = None if chosen is None else chosen.node_ids
    try:
        wrong = vector_problems(docstore, store, embedder, ids=ids)
    except EmbeddingError as exc:
        if not sample:
            raise
        return VectorCheck(nodes, model=model, skipped=f"{model} failed: {exc}"), []
    return VectorCheck(nodes, embedded=nodes if ids is None else len(ids),
                       suspects=0 if chosen is None else len(chosen.suspects), model=model,
                       seconds=time.perf_counter() - start), wrong


def _how_found(vectors: VectorCheck, wrong: list[str]) -> str:
    """For vectors found wrong in a sample: that others may be, and how to find them all."""
    if not wrong or vectors.embedded == vectors.nodes:
        return ""
    return (f" (found among {vectors.embedded} of {vectors.nodes} nodes embedded again; "
            "`ragcore verify --embeddings` compares every node's vector)")
