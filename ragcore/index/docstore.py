"""The document store: node records and per-document info, with node records read lazily.

The vector store holds vectors; this holds what the vectors stand for: every node (text,
offsets, metadata, relationships) and every source document's content hash, metadata and node
ids. On disk, in segments (``node_segments``, ``doc_segments``: a save links the segments it
keeps and writes only what was added or changed since):

- ``nodes.jsonl``: one node record per line; ``offsets.npy``: the byte offset of every line,
  plus the file size (int64); ``node_crcs.npy``: the CRC-32 of every line, checked as the line
  is read (uint32); ``node_ids.json``: the node ids in line order (one set per node segment);
- ``doc_records.json``: documents as columns (``doc_ids``, ``hashes``, ``characters``,
  ``indexed_at``, ``metadata`` as JSON text per document) and ``node_counts.npy``: each
  one's nodes (one of each per record segment). Columns of scalars parse several times faster
  than one object per document, and each document's metadata is decoded only when asked for;
- ``docs.json``: the segments, its ``version`` and ``loose``, the number of trailing nodes
  without a document; ``node_runs.npy`` and ``doc_runs.npy``: which rows the docstore holds,
  in its order (documents one by one, then nodes without one). Folders written before
  segments keep the columns, with ``node_counts``, in ``docs.json``.

A commit of an ingestion's batch costs the batch, whatever the size of the index: the docstore
notes what changed since its last save (nodes and documents added after all the others, or
anything else) and, while only that, the save appends them (``NodeSegments.append``,
``DocSegments.append``) without listing the nodes or documents it keeps.

Loading parses the JSON files (to catch damage early) but builds the per-document entries
and the id maps on first use, and opens ``nodes.jsonl`` without reading it: a node is decoded
from its line when first asked for. So opening a 100k-node index costs tens of milliseconds. A
keyword hit names its row in the node segments (``get_at``), so the first keyword query after a
load builds no id map either. The file layout (``NodeFile``, the offsets, the columns check) is
in ``node_file``; the per-document entries in ``doc_entries``.
"""

from __future__ import annotations

import json
from itertools import chain
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

from ..disk import read_json, write_json, write_npy
from ..errors import IndexFormatError, StoreError
from ..stores.simple.persist import ids_mismatch
from .changes import Changes
from .disk.checksums import damaged
from .doc_entries import DocInfo, DocEntry, entries_from_columns, utc_now
from .disk.node_file import NodeFile, check_columns, node_lines, write_node_file
from .disk.doc_segments import COUNTS, VERSION, DocSegments, doc_records, first_records
from .disk.doc_segments import RUNS as DOC_RUNS
from .disk.doc_segments import read_documents
from .disk.node_segments import (
    RUNS, NodeSegments, as_runs, listed_segments, read_runs, read_segment, write_ids,
)
from ..types import Node


class DocStore:
    """Documents and their nodes, in insertion order."""

    def __init__(self) -> None:
        self._entries: dict[str, DocEntry] | None = {}  # None until built from _columns
        self._loose: list[str] = []  # ids of nodes that belong to no document
        self._columns: dict[str, Any] | None = None  # docs.json as loaded
        self._file_ids: list[str] = []  # node ids in nodes.jsonl line order (as loaded)
        self._members: dict[str, str | None] | None = {}  # node id -> doc id; built lazily
        self._nodes: dict[str, Node] = {}  # decoded or newly added nodes
        self._since = Changes()  # since the last save or load: what the next save writes
        self._disk: NodeSegments | None = None  # the segments read or last saved
        self._docs_disk: DocSegments | None = None  # and those of the document records
        self._as_disk = False  # holds exactly the nodes of _disk's runs (none added or removed)
        self._count = 0
        self._characters = 0  # of every document (counted from _columns when they are read)

    def __len__(self) -> int:
        return self._count

    def __contains__(self, node_id: object) -> bool:
        if self._members is None and self._as_disk:  # one map (node -> row), not two
            return node_id in self._disk.where()  # type: ignore[union-attr]
        return node_id in self._member_map()

    def _docs(self) -> dict[str, DocEntry]:
        if self._entries is None:
            columns = self._columns or {}
            self._entries, self._loose = entries_from_columns(columns, self._file_ids)
            self._characters = sum(columns.get("characters", []))
            self._since.saved_loose = len(self._loose)  # as loaded: nothing changed before
            self._columns = None
        return self._entries

    def _member_map(self) -> dict[str, str | None]:
        if self._members is None:
            members: dict[str, str | None] = {}
            for doc_id, entry in self._docs().items():
                members.update(dict.fromkeys(entry.node_ids, doc_id))
            members.update(dict.fromkeys(self._loose))
            self._members = members
        return self._members

    # -- documents ---------------------------------------------------------------------------

    def doc_ids(self) -> list[str]:
        if self._entries is None and self._columns is not None:
            return list(self._columns["doc_ids"])
        return list(self._docs())

    def doc_count(self) -> int:
        if self._entries is None and self._columns is not None:
            return len(self._columns["doc_ids"])
        return len(self._docs())

    def doc(self, doc_id: str) -> DocInfo | None:
        entry = self._docs().get(doc_id)
        if entry is None:
            return None
        return DocInfo(
            doc_id=doc_id,
            hash=entry.hash,
            metadata=dict(entry.metadata()),
            node_ids=list(entry.node_ids),
            characters=entry.characters,
            indexed_at=entry.indexed_at,
        )

    def has_doc(self, doc_id: str) -> bool:
        return doc_id in self._docs()

    def doc_hash(self, doc_id: str) -> str | None:
        entry = self._docs().get(doc_id)
        return None if entry is None else entry.hash

    def doc_node_ids(self, doc_id: str) -> list[str]:
        entry = self._docs().get(doc_id)
        return [] if entry is None else list(entry.node_ids)

    def node_ids(self) -> list[str]:
        """Every node id, document by document, then nodes without a document."""
        if self._entries is None:
            return list(self._file_ids)
        ids = chain.from_iterable(e.node_ids for e in self._entries.values())
        return [*ids, *self._loose]

    def characters(self) -> int:
        if self._entries is None and self._columns is not None:
            return sum(self._columns["characters"])
        return self._characters

    # -- changes -----------------------------------------------------------------------------

    def add_doc(self, info: DocInfo) -> None:
        """Record a document (its nodes follow with ``add_nodes``); may replace a node-less one."""
        docs = self._docs()
        old = docs.get(info.doc_id)
        if old is not None and old.node_ids:
            raise StoreError(f"document {info.doc_id!r} is already in the index: remove it first")
        docs[info.doc_id] = DocEntry(
            info.hash, dict(info.metadata), [], info.characters, info.indexed_at or utc_now()
        )
        self._characters += info.characters - (0 if old is None else old.characters)
        if old is None:
            self._since.doc_added(info.doc_id)
        else:  # in its place
            self._since.doc_changed(info.doc_id)

    def add_nodes(self, nodes: Sequence[Node]) -> None:
        """Record nodes; each joins its document's node list (the document is created if new)."""
        members, docs = self._member_map(), self._docs()
        for node in nodes:
            if node.node_id in members:
                raise StoreError(f"node id {node.node_id!r} is already in the index")
            doc_id = node.ref_doc_id
            if doc_id is None:
                self._loose.append(node.node_id)
            else:
                entry = docs.get(doc_id)
                if entry is None:  # known only through its nodes: no hash, so refresh re-embeds
                    entry = docs[doc_id] = DocEntry(None, {}, [], 0, utc_now())
                    self._since.doc_added(doc_id)
                entry.node_ids.append(node.node_id)
                if entry.hash is None:
                    entry.characters += len(node.text)
                    self._characters += len(node.text)
            members[node.node_id] = doc_id
            self._nodes[node.node_id] = node
            self._since.node_added(node.node_id, doc_id)
            self._as_disk = False
            self._count += 1

    def set_info(
        self, doc_id: str, hash: str | None, metadata: dict[str, Any], characters: int
    ) -> None:
        """Replace a document's hash, metadata and length (its nodes stay)."""
        entry = self._docs().get(doc_id)
        if entry is None:
            raise StoreError(f"no document {doc_id!r} in the index: add it first")
        self._characters += characters - entry.characters
        entry.hash, entry.meta, entry.characters = hash, metadata, characters
        self._since.doc_changed(doc_id)

    def remove_doc(self, doc_id: str) -> list[str]:
        """Forget a document and its nodes; returns the removed node ids."""
        entry = self._docs().pop(doc_id, None)
        if entry is None:
            return []
        self._since.doc_removed(doc_id)
        self._characters -= entry.characters
        self._forget(entry.node_ids)
        return list(entry.node_ids)

    def remove_nodes(self, node_ids: Iterable[str]) -> list[str]:
        """Forget nodes wherever they are; returns the ids that were present."""
        members, docs = self._member_map(), self._docs()
        present = [i for i in dict.fromkeys(node_ids) if i in members]
        doomed = set(present)
        for doc_id in {members[i] for i in present}:
            if doc_id is None:
                self._loose = [i for i in self._loose if i not in doomed]
            else:
                entry = docs[doc_id]
                entry.node_ids = [i for i in entry.node_ids if i not in doomed]
                self._since.doc_changed(doc_id)  # its node count
        self._forget(present)
        return present

    def _forget(self, node_ids: Sequence[str]) -> None:
        members = self._member_map()
        self._as_disk = self._as_disk and not node_ids
        self._since.nodes_removed(node_ids)
        for node_id in node_ids:
            members.pop(node_id, None)
            self._nodes.pop(node_id, None)
        self._count -= len(node_ids)

    # -- nodes -------------------------------------------------------------------------------

    def get(self, node_id: str, *, keep: bool = True) -> Node:
        """A node by id; one decoded from disk is kept decoded unless ``keep`` is False (a
        pass over many nodes, such as counting their tokens, then holds none of them)."""
        node = self._nodes.get(node_id)
        if node is not None:
            return node
        disk = self._disk
        found = None if disk is None or node_id in self._since.fresh else disk.locate(node_id)
        # Rows of nodes deleted since load are still in the files: check membership.
        if found is not None and (self._as_disk or node_id in self._member_map()):
            return self._decoded(node_id, *found, keep=keep)
        raise StoreError(f"no node with id {node_id!r} in the index")

    def get_at(self, node_id: str, row: int, source: object) -> Node:
        """The node ``node_id``, held by this docstore, found on global ``row`` of the node
        segments ``source`` when they are still the ones read or saved and the row holds it
        (a keyword hit knows its row): the first query after a load at 1M nodes then builds
        no id map (0.4 s each). Else as ``get``."""
        node, disk, fresh = self._nodes.get(node_id), self._disk, self._since.fresh
        if node is None and disk is not None and disk is source and node_id not in fresh:
            if 0 <= row < disk.starts[-1] and (self._as_disk or node_id in self):
                file, line = disk.at(row)
                if file.ids[line] == node_id:
                    return self._decoded(node_id, file, line, keep=True)
        return node if node is not None else self.get(node_id)

    def get_nth(self, node_id: str, position: int) -> Node | None:
        """The node ``node_id`` if this docstore holds it (else None), looked for first as its
        ``position``-th node (a vector hit's row in a store that holds the nodes in the same
        order): while no node was added or removed since the load or save, that position is a
        held row of the node segments, read without building an id map."""
        disk = self._disk
        if self._as_disk and node_id not in self._nodes and 0 <= position < self._count:
            file, line = disk.at(disk.held_row(position))  # type: ignore[union-attr]
            if file.ids[line] == node_id:
                return self._decoded(node_id, file, line, keep=True)
        return self.get(node_id) if node_id in self else None

    def _decoded(self, node_id: str, file: NodeFile, line: int, *, keep: bool) -> Node:
        """Node ``node_id`` decoded from ``line`` of ``file``, checked against the id and the
        document the docstore lists it under."""
        node = file.node(line)
        if node.node_id != node_id:  # node_runs.npy sent the id to another node's line
            raise damaged(self._disk.folder / RUNS, f"names line {line + 1} of "  # type: ignore
                          f"{file.path} for node {node_id!r}, which holds {node.node_id!r}")
        # Checked once the documents are read (their node lists then say where it belongs).
        listed = node.ref_doc_id if self._entries is None else self._member_map()[node_id]
        if node.ref_doc_id != listed:
            counts = COUNTS if self._docs_disk else "docs.json"  # or a folder before them
            raise IndexFormatError(
                f"{self._disk.folder / counts}: lists node {node_id!r} under "  # type: ignore
                f"document {listed!r} but the node belongs to {node.ref_doc_id!r}; the "
                "index is damaged: rebuild it from its documents"
            )
        if keep:
            self._nodes[node_id] = node
        return node

    def iter_nodes(self) -> Iterator[Node]:
        for node_id in self.node_ids():
            yield self.get(node_id)

    def _locate(self, node_id: str) -> tuple[NodeFile, int] | None:
        """Where the record of ``node_id`` is on disk (None: added since the last save)."""
        disk = self._disk
        return None if disk is None or node_id in self._since.fresh else disk.locate(node_id)

    def _encode(self, node_id: str) -> bytes:
        line = json.dumps(self.get(node_id).to_dict(), ensure_ascii=False, default=str)
        return line.encode("utf-8") + b"\n"

    # -- disk --------------------------------------------------------------------------------

    def persist(self, folder: Path) -> None:
        """Write the node records into the index folder ``folder`` (``node_segments``: the
        segments kept are linked, the nodes added since written as a new one), the document
        records (``doc_segments``, alike), the runs and docs.json; nodes are read from there
        from now on."""
        self._docs()
        disk, docs_disk = self._save_nodes(folder), self._save_docs(folder)
        write_npy(folder / RUNS, disk.runs)
        write_npy(folder / DOC_RUNS, docs_disk.runs)
        write_json(folder / "docs.json", {
            "version": VERSION,
            "segments": [{"name": s.name, "rows": s.rows} for s in disk.segments],
            "doc_segments": [{"name": s.name, "rows": s.rows} for s in docs_disk.segments],
            "loose": len(self._loose),
        })
        # From now on read nodes from the files just written: records added leave memory.
        self._disk, self._docs_disk, self._file_ids = disk, docs_disk, []  # the entries hold it
        self._since.saved(len(self._loose))
        self._as_disk = True
        self._nodes.clear()

    def _save_nodes(self, folder: Path) -> NodeSegments:
        disk = self._disk
        if disk is not None and disk.linkable():
            added = self._since.appended_nodes(self._docs(), self._loose)
            saved = None if added is None else disk.append(folder, added, self._encode)
            if saved is not None:  # only nodes added, after the others: an ingestion's
                return saved
            return disk.save(folder, self.node_ids(), self._since.fresh, self._encode)
        # Nothing saved yet, or its files were replaced: write every record (copied).
        node_ids = self.node_ids()
        lines = node_lines(node_ids, self._locate, self._encode)
        offsets, crcs = write_node_file(folder, lines, len(node_ids))
        segment = write_ids(folder, "", node_ids)
        file = NodeFile(folder / "nodes.jsonl", offsets, node_ids, crcs)
        return NodeSegments(folder, [segment], [file], node_ids, as_runs(range(len(node_ids))))

    def _save_docs(self, folder: Path) -> DocSegments:
        disk, docs = self._docs_disk, self._docs()
        if disk is None or not disk.linkable():  # or a version 1 folder's: counts added
            return first_records(folder, self._doc_records(list(docs)))
        added = self._since.appended_docs()
        saved = None if added is None else disk.append(folder, added, self._doc_records)
        if saved is not None:
            return saved
        return disk.save(folder, list(docs), self._since.dirty, self._doc_records)

    def merges_due(self) -> bool:
        """Whether the saved node or record segments are due a size-tiered merge."""
        return any(d is not None and d.merges_due() for d in (self._disk, self._docs_disk))

    def _doc_records(self, doc_ids: list[str]) -> dict[str, list[Any]]:
        return doc_records(doc_ids, [self._docs()[d] for d in doc_ids])

    def id_digests(self) -> dict[str, str]:
        """The digest of each segment's node_ids.json, by file (``bindings``)."""
        segments = [] if self._disk is None else self._disk.segments
        return {s.key("node_ids.json"): s.digests["node_ids.json"] for s in segments}

    def expect_id_digests(self, digests: dict[str, str]) -> None:
        """Check each segment's node ids against ``digests`` as the manifest recorded them."""
        for segment in [] if self._disk is None else self._disk.segments:
            expected = digests.get(segment.key("node_ids.json"))
            if expected is not None and segment.digests["node_ids.json"] != expected:
                raise ids_mismatch(segment.path("node_ids.json"))

    @classmethod
    def load(cls, folder: Path, *, expected_nodes: int) -> DocStore:
        """Read docs.json and the segments' node ids and map their nodes.jsonl; nodes decode
        on first use."""
        docs_path = folder / "docs.json"
        store = cls()
        data = read_json(docs_path)
        columns, store._docs_disk = read_documents(folder, data)
        store._columns = columns = check_columns(docs_path, columns)
        listed = data.get("segments")
        segments, files = [], []
        for name, rows in listed_segments(docs_path, listed, "nodes"):
            segment, file = read_segment(folder, name, rows)
            segments.append(segment)
            files.append(file)
        runs = read_runs(folder, listed, sum(s.rows for s in segments))
        disk = NodeSegments(folder, segments, files, None, runs)
        store._file_ids = disk.ids
        store._entries, store._members = None, None
        count, claimed = len(store._file_ids), sum(columns["node_counts"])
        if count != expected_nodes or claimed > count:
            where = folder / (RUNS if listed is not None else "node_ids.json")
            raise IndexFormatError(f"{where}: lists {count} nodes (documents claim {claimed}) "
                                   f"but the manifest says {expected_nodes}")
        store._count, store._disk, store._as_disk = count, disk, True
        return store
