"""Digests that bind an index's files together: the ordered ids of its node records and vectors.

Each file of a generation has its own checksums (``checksums``), but a row of one file means
something only beside the same row of another: line 7 of ``nodes.jsonl`` is the node whose id is
entry 7 of ``node_ids.json``, row 7 of ``vectors.npy`` is the vector of entry 7 of
``vector_ids.json``, which belongs to the document at entry 7 of ``vector_doc_ids.json``. Ids
swapped or shifted in one of them (a writer with a bug, a hand edit, a restore that mixed two
generations) leave every file well formed, and their checksums may well have been recomputed
with them. So the manifest also records, under ``ids``, a digest of each ordered id list of
each segment (``ragcore.stores.simple.persist.ids_digest``; a segment's is computed when it is
written and carried with it): ``node_ids.json`` and ``vector_ids.json`` are checked at load (a
few milliseconds per 100k ids), ``vector_doc_ids.json`` when it is first parsed (before the
store finds rows by their documents), and all of them by ``ragcore verify``, which also checks
each node record's document against its vector row's. A store whose rows live in a database
records no ids here. Folders written before the digests load as they are and get
them on their next save.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .checksums import damaged
from ..docstore import DocStore


def record_ids(docstore: DocStore, store: object) -> dict[str, str]:
    """The digests a persist records in the manifest's ``ids``, by file."""
    digests = docstore.id_digests()
    of_store = getattr(store, "id_digests", None)
    if callable(of_store):
        digests.update(of_store())
    return digests


def check_ids(data: Path, digests: Any, docstore: DocStore, store: object) -> None:
    """At load: the node ids and the store's row ids against the manifest's digests (nothing
    to check for a folder written before them)."""
    if digests is None:
        return
    if not isinstance(digests, dict) or not all(isinstance(d, str) for d in digests.values()):
        raise damaged(data.parent / "manifest.json", "'ids' is not an object of digests")
    docstore.expect_id_digests(digests)
    expect = getattr(store, "expect_id_digests", None)
    if callable(expect):
        expect(digests, data)


def check_vector_documents(data: Path, docstore: DocStore, store: object) -> None:
    """For ``ragcore verify``: every vector row belongs to its node's document (rows written
    before stores kept document ids have None, and are skipped)."""
    doc_ids = getattr(store, "doc_ids", None)
    if not callable(doc_ids):
        return
    rows = dict(zip(store.ids(), doc_ids()))  # type: ignore[attr-defined]
    for doc_id in docstore.doc_ids():
        for node_id in docstore.doc_node_ids(doc_id):
            found = rows.get(node_id)
            if found is not None and found != doc_id:
                raise damaged(data / "vector_doc_ids.json", f"the vector of node {node_id!r} "
                              f"is listed under document {found!r}, but the node belongs to "
                              f"{doc_id!r}")
