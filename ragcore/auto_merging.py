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

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Iterable, Protocol

from .errors import ConfigError, StoreError
from .retrieval import Retriever
from .trace import Trace
from .types import Node, ScoredNode


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
