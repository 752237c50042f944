"""Cross-checks of an index's records against one another, for ``ragcore verify``.

The checksums (``checksums``, the line CRCs of ``node_file``, the id digests of ``bindings``)
find accidents: a flipped bit, a torn write, files of two generations mixed. They are no
defence against whoever can write the folder, or a writer with a bug: either can change a
record and compute its checksums again. What such a change rarely keeps true is that the
records were made from one another, and that is what is compared here:

- a node's words are its row's keyword postings, analyzed from its text when it was written;
- a node's text is ``end_char - start_char`` characters long, and two nodes of a document
  that overlap agree on the characters they share;
- a node's id is derived from its document and offsets (``chunking.nodes.node_id``, salted
  by the splitter the manifest names): a node holding the offsets another node's id is made
  of has had its id swapped; and its prev/next links name neighbours that name it back;
- every vector row is a node's, and every node has a row;
- with the index's model, each node's vector is what the model makes of its text again (every
  node's, or a sample's: ``vector_sample``).

A document's SHA-256 (``docs.json``) covers its whole text, but its nodes leave the
whitespace between them out, so the text cannot be rebuilt to check it. Each mismatch is a
line naming the node, its document and what differs; ``verify`` lists them.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from ...chunking.nodes import node_id as derived_id
from ...disk import read_json
from ...types import MetadataMode, Node
from ..docstore import DocStore
from .node_segments import listed_segments, read_segment
from ..postings import Postings, build_postings

SAME_VECTOR = 0.98  # cosine of a node's stored vector and its text embedded again, at least
_BATCH = 256  # nodes embedded again per call


def record_problems(data: Path, manifest: dict[str, Any], docstore: DocStore,
                    store: Any) -> list[str]:
    """Every disagreement between the records of the generation in ``data``, one line each
    (vectors against their texts: ``vector_problems``, which needs the index's model)."""
    salt = _splitter_salt(manifest)
    known = set(docstore.node_ids())
    problems: list[str] = []
    for doc_id in docstore.doc_ids():
        nodes = [docstore.get(i, keep=False) for i in docstore.doc_node_ids(doc_id)]
        problems += node_problems(doc_id, nodes, salt=salt, known=known)
    problems += postings_problems(data)
    return problems + row_problems(known, store)


def node_problems(doc_id: str, nodes: list[Node], *, salt: str | None,
                  known: set[str]) -> list[str]:
    """What a document's nodes say about one another: lengths, overlaps, ids and links."""
    problems = []
    by_id = {n.node_id: n for n in nodes}
    for node in nodes:
        where = f"node {node.node_id!r} of document {doc_id!r}"
        span = _span(node)
        if span is not None:
            problems += _span_problems(where, node, span, salt, known)
        problems += _link_problems(where, node, by_id)
    return problems + _overlap_problems(doc_id, nodes)


def _span(node: Node) -> tuple[int, int] | None:
    """(start_char, end_char), when the node has both."""
    start, end = node.start_char, node.end_char
    return (start, end) if isinstance(start, int) and isinstance(end, int) else None


def _span_problems(where: str, node: Node, span: tuple[int, int], salt: str | None,
                   known: set[str]) -> list[str]:
    start, end = span
    if end - start != len(node.text):
        return [f"{where}: its text is {len(node.text)} characters but its offsets "
                f"{start}-{end} say {end - start}"]
    made = derived_id(node.ref_doc_id or "", start, end, salt) if salt is not None else None
    if made is not None and made != node.node_id and made in known:
        return [f"{where}: holds the offsets {start}-{end} the id {made!r} was made from "
                "(the two ids were swapped)"]
    return []


def _link_problems(where: str, node: Node, by_id: dict[str, Node]) -> list[str]:
    if node.node_id in (node.prev_id, node.next_id):
        return [f"{where}: names itself as its previous or next node"]
    following = by_id.get(node.next_id) if node.next_id else None
    if following is None:
        return []
    if following.prev_id not in (None, node.node_id):
        return [f"{where}: names {following.node_id!r} as its next node, but that node names "
                f"{following.prev_id!r} as its previous one"]
    mine, theirs = _span(node), _span(following)
    if mine is not None and theirs is not None and theirs[0] < mine[0]:
        return [f"{where}: its next node {following.node_id!r} starts before it does"]
    return []


def _overlap_problems(doc_id: str, nodes: list[Node]) -> list[str]:
    """Each node against the node reaching furthest among those that start before it."""
    problems, widest = [], None
    spanned = [(span, node) for node in nodes if (span := _span(node)) is not None]
    for (start, end), node in sorted(spanned, key=lambda pair: pair[0][0]):
        if widest is not None and start < widest[0][1]:
            (w_start, w_end), other = widest
            shared = min(end, w_end)
            if node.text[: shared - start] != other.text[start - w_start : shared - w_start]:
                problems.append(f"nodes {other.node_id!r} and {node.node_id!r} of document "
                                f"{doc_id!r} differ on the characters {start}-{shared} they "
                                "share")
        if widest is None or end > widest[0][1]:
            widest = ((start, end), node)
    return problems


def postings_problems(data: Path) -> list[str]:
    """Each node segment's rows analyzed again against the keyword postings saved with them."""
    listed = read_json(data / "docs.json").get("segments")
    problems = []
    for name, rows in listed_segments(data / "docs.json", listed, "nodes"):
        segment, file = read_segment(data, name, rows)
        if segment.extra is None:  # written before postings were saved: nothing to compare
            continue
        texts = (file.node(r).content(MetadataMode.EMBED) for r in range(len(file.ids)))
        fresh = build_postings(texts)
        differ = np.flatnonzero((_signatures(fresh) != _signatures(segment.extra[0]))
                                | (fresh.lengths != segment.extra[0].lengths))
        for row in differ.tolist():
            node = file.node(row)
            problems.append(f"node {node.node_id!r} of document {node.ref_doc_id!r}: its words "
                            f"are not those its keyword postings were made of when it was "
                            f"written (line {row + 1} of {file.path}): its text was changed")
    return problems


def _signatures(postings: Postings) -> np.ndarray:
    """Per row, a sum over its terms of a hash of the term times its frequency."""
    hashes = np.array([zlib.crc32(t.encode("utf-8")) for t in postings.terms()], np.uint64)
    per_term = np.diff(postings.table[:, 1]).astype(np.int64)
    weights = np.repeat(hashes * np.uint64(2654435761), per_term) * postings.tfs.astype(np.uint64)
    signatures = np.zeros(len(postings), np.uint64)
    np.add.at(signatures, postings.rows.astype(np.int64), weights)
    return signatures


def row_problems(known: set[str], store: Any) -> list[str]:
    """Vector rows whose node no document lists (a node without a row fails ``get_vectors``)."""
    ids = getattr(store, "ids", None)
    if not callable(ids):
        return []
    return [f"vector row of node {node_id!r}: no document of the index lists that node"
            for node_id in ids() if node_id not in known]


def vector_problems(docstore: DocStore, store: Any, embedder: Any, *,
                    ids: Sequence[str] | None = None) -> list[str]:
    """Each node's text (every node, or those of ``ids``) embedded again against its stored
    vector (the model must be the index's): a row whose vector is another text's has had its
    id swapped or shifted."""
    from ...embeddings.base import embed_nodes

    problems = []
    ids = docstore.node_ids() if ids is None else list(ids)
    for start in range(0, len(ids), _BATCH):
        batch = ids[start : start + _BATCH]
        nodes = [docstore.get(i, keep=False) for i in batch]
        fresh = unit_rows(embed_nodes(embedder, nodes))
        stored = unit_rows(store.get_vectors(batch))
        for node, cosine in zip(nodes, (fresh * stored).sum(axis=1).tolist()):
            if cosine < SAME_VECTOR:
                problems.append(f"node {node.node_id!r} of document {node.ref_doc_id!r}: its "
                                f"vector is not its text's (cosine {cosine:.2f} with the text "
                                f"embedded again by {embedder.model_name}): vector rows were "
                                "swapped or shifted")
    return problems


def unit_rows(vectors: Any) -> np.ndarray:
    """Each row scaled to length 1 (a zero row stays zero)."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms > 0, norms, 1.0)


def _splitter_salt(manifest: dict[str, Any]) -> str | None:
    """The salt of the node ids the manifest's splitter makes (``Splitter.settings_hash``)."""
    settings = (manifest.get("splitter") or {}).get("settings")
    if not isinstance(settings, dict) or "splitter" not in settings:
        return None
    payload = json.dumps(settings, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(payload.encode("ascii")).hexdigest()[:16]


def summary(problems: Iterable[str], shown: int = 10) -> str:
    """The problems as one message: the first ``shown``, and how many more."""
    problems = list(problems)
    more = f"; and {len(problems) - shown} more" if len(problems) > shown else ""
    records = "1 record disagrees" if len(problems) == 1 else f"{len(problems)} records disagree"
    return (f"{records} with one another, though every checksum "
            f"matches (changed after they were written): " + "; ".join(problems[:shown]) + more)
