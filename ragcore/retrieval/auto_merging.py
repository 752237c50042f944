"""Auto-merging retrieval: retrieve small chunks, answer with their parent when most came back.

Built for ``HierarchicalNodeParser`` output: only the leaves are indexed (embedded), and every
level is kept in a node lookup (anything with ``get_node(node_id)``: a ``NodeStore`` of all the
parser's nodes, or an index holding them). After the base retriever answers, two steps repeat
until nothing changes, as in LlamaIndex's ``AutoMergingRetriever``:

- fill in: two retrieved siblings with one node between them bring that node in (scored as
  their average), so a passage is not read with a hole in it;
- merge: when more than ``simple_ratio_thresh`` of a parent's children were retrieved, they are
  replaced by the parent, scored as their average; a merged parent can merge into its own.

Unlike the plain retriever it wraps, the result can hold fewer, larger nodes; its trace stage
"auto-merge" says how many nodes were filled in and merged into how many parents.
"""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Iterable, Protocol

from ..errors import ConfigError, StoreError
from .retrievers import Retriever
from .sentence_window import stitch
from ..trace import Trace
from ..types import Node, ScoredNode


class NodeLookup(Protocol):
    """Where parents are found: ``get_node(node_id)`` raising StoreError when absent."""

    def get_node(self, node_id: str) -> Node: ...


@dataclass(slots=True)
class NodeStore:
    """Nodes by id in memory: the lookup for a hierarchy whose parents are not indexed."""

    nodes: dict[str, Node] = field(default_factory=dict)

    def add_documents(self, nodes: Iterable[Node]) -> None:
        """Keep ``nodes`` (LlamaIndex's name: its docstore holds nodes as documents)."""
        for node in nodes:
            self.nodes[node.node_id] = node

    add_nodes = add_documents

    def get_node(self, node_id: str) -> Node:
        try:
            return self.nodes[node_id]
        except KeyError:
            raise StoreError(f"node {node_id!r} is not in this node store: add the parser's "
                             "nodes with add_documents(nodes)") from None

    get_document = get_node

    def __len__(self) -> int:
        return len(self.nodes)


class AutoMergingRetriever:
    """Leaves from ``retriever``, merged into their parents from ``nodes`` when enough came."""

    def __init__(
        self, retriever: Retriever, nodes: NodeLookup, *, simple_ratio_thresh: float = 0.5
    ) -> None:
        if not callable(getattr(retriever, "retrieve", None)):
            raise ConfigError(f"{retriever!r} is not a retriever: it needs retrieve(query)")
        if not callable(getattr(nodes, "get_node", None)):
            raise ConfigError("nodes= must look nodes up by id (get_node): e.g. a NodeStore "
                              "holding every node of the HierarchicalNodeParser")
        if not isinstance(simple_ratio_thresh, (int, float)) or not 0 <= simple_ratio_thresh < 1:
            raise ConfigError(f"simple_ratio_thresh ({simple_ratio_thresh!r}) must be in [0, 1)")
        self.retriever = retriever
        self.nodes = nodes
        self.simple_ratio_thresh = float(simple_ratio_thresh)

    def retrieve(self, query: str, *, trace: Trace | None = None) -> list[ScoredNode]:
        """The retrieved nodes after filling in and merging, best first."""
        found = self.retriever.retrieve(query, trace=trace)
        stage = trace.stage("auto-merge", nodes_in=len(found)) if trace else nullcontext({})
        with stage as detail:
            counts = {"filled_in": 0, "merged_children": 0, "parents": 0}
            changed = True
            while changed:
                found, filled = fill_in(found, self.nodes)
                found, children, parents = merge_into_parents(found, self.nodes,
                                                              self.simple_ratio_thresh)
                counts["filled_in"] += filled
                counts["merged_children"] += children
                counts["parents"] += parents
                changed = bool(filled or children)
            found.sort(key=lambda n: -(n.score or 0.0))
            detail.update(counts, nodes_out=len(found))
        return found


def fill_in(found: list[ScoredNode], nodes: NodeLookup) -> tuple[list[ScoredNode], int]:
    """Add the node between consecutive siblings ``a, b`` (a.next is b.prev), once."""
    present = {n.node.node_id for n in found}
    result: list[ScoredNode] = []
    added = 0
    for current, following in zip(found, [*found[1:], None]):
        result.append(current)
        gap = current.node.next_id
        if following is None or gap is None or gap in present:
            continue
        if gap == following.node.prev_id:
            score = ((current.score or 0.0) + (following.score or 0.0)) / 2
            result.append(ScoredNode(nodes.get_node(gap), score))
            present.add(gap)
            added += 1
    return result, added


def merge_into_parents(
    found: list[ScoredNode], nodes: NodeLookup, threshold: float
) -> tuple[list[ScoredNode], int, int]:
    """Replace children by their parent where more than ``threshold`` of them were found;
    returns the nodes, how many children were merged and into how many parents."""
    by_parent: dict[str, list[ScoredNode]] = {}
    for scored in found:
        if scored.node.parent_id is not None:
            by_parent.setdefault(scored.node.parent_id, []).append(scored)
    merged: set[str] = set()
    parents: list[ScoredNode] = []
    for parent_id, children in by_parent.items():
        parent = nodes.get_node(parent_id)
        if len(children) / max(1, len(parent.child_ids)) > threshold:
            merged.update(c.node.node_id for c in children)
            score = sum(c.score or 0.0 for c in children) / len(children)
            parents.append(ScoredNode(parent, score))
    kept = [n for n in found if n.node.node_id not in merged]
    return kept + parents, len(merged), len(parents)


class ChunkGroups:
    """Auto-merging over an index of ordinary chunks: each run of ``group_size`` consecutive
    chunks of a document is a parent, made on demand (text stitched from its chunks).

    Nothing is re-embedded: the index's chunks are the leaves. ``leaves(retriever)`` wraps a
    retriever of the index so its nodes name their group as parent; this object is the
    ``nodes=`` lookup of ``AutoMergingRetriever`` (chunks and their groups by id).
    """

    PREFIX = "chunk-group:"

    def __init__(self, index: Any, *, group_size: int = 4) -> None:
        if isinstance(group_size, bool) or not isinstance(group_size, int) or group_size < 2:
            raise ConfigError(f"group_size ({group_size!r}) must be at least 2 chunks")
        if not callable(getattr(index, "nodes_for_doc", None)):
            raise ConfigError("index= must list a document's chunks (nodes_for_doc)")
        self.index = index
        self.group_size = group_size
        self._docs: dict[str, dict[str, Node]] = {}

    def leaves(self, retriever: Retriever) -> _GroupedRetriever:
        """``retriever`` with each found chunk's parent set to its group."""
        return _GroupedRetriever(retriever, self)

    def get_node(self, node_id: str) -> Node:
        doc_id, _, first = node_id.removeprefix(self.PREFIX).partition("\x1f")
        if node_id.startswith(self.PREFIX):
            return self._group(doc_id, first)
        for nodes in self._docs.values():
            if node_id in nodes:
                return nodes[node_id]
        raise StoreError(f"chunk {node_id!r} was not retrieved from this index")

    def grouped(self, node: Node) -> Node:
        """The chunk as a leaf of its group (parent id set)."""
        doc_id = node.ref_doc_id or ""
        if doc_id not in self._docs:
            self._docs[doc_id] = self._doc_leaves(doc_id)
        return self._docs[doc_id].get(node.node_id, node)

    def _doc_leaves(self, doc_id: str) -> dict[str, Node]:
        chunks = self.index.nodes_for_doc(doc_id)
        leaves = {}
        for start in range(0, len(chunks), self.group_size):
            run = chunks[start: start + self.group_size]
            parent = f"{self.PREFIX}{doc_id}\x1f{run[0].node_id}"
            for chunk in run:
                leaves[chunk.node_id] = dataclasses.replace(chunk, parent_id=parent)
        return leaves

    def _group(self, doc_id: str, first: str) -> Node:
        leaves = self._docs.get(doc_id) or {}
        run = [n for n in leaves.values() if n.parent_id == f"{self.PREFIX}{doc_id}\x1f{first}"]
        if not run:
            raise StoreError(f"no chunk group starts at {first!r} in document {doc_id!r}")
        known = all(n.start_char is not None and n.end_char is not None for n in run)
        return Node(
            stitch(run) if known else "\n\n".join(n.text for n in run),
            node_id=run[0].parent_id, ref_doc_id=run[0].ref_doc_id,
            start_char=run[0].start_char if known else None,
            end_char=max(n.end_char for n in run) if known else None,
            metadata=dict(run[0].metadata),
            excluded_embed_metadata_keys=list(run[0].excluded_embed_metadata_keys),
            excluded_llm_metadata_keys=list(run[0].excluded_llm_metadata_keys),
            child_ids=[n.node_id for n in run],
        )


@dataclass(slots=True)
class _GroupedRetriever:
    retriever: Retriever
    groups: ChunkGroups

    def retrieve(self, query: Any, *, trace: Trace | None = None) -> list[ScoredNode]:
        found = self.retriever.retrieve(query, trace=trace)
        return [ScoredNode(self.groups.grouped(s.node), s.score) for s in found]
