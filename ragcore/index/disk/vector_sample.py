"""The nodes plain ``ragcore verify`` embeds again: a sample of bounded size, and why each.

``consistency.vector_problems`` compares stored vectors with their nodes' texts embedded again
by the index's model; over every node (``ragcore verify --embeddings``) that takes as long as
embedding the index did. Plain verify embeds at most ``SUSPECTS + AT_RANDOM`` nodes, whatever
the index's size:

- the ``SUSPECTS`` nodes whose stored vectors are least like either neighbour's in their
  document. Neighbours share text (chunks overlap, and a passage's topic carries on), so a
  vector moved in from another document stands out without the model: on a 515-node index of
  13 PEPs, an RFC and a speech (packaged model), one of two vectors swapped between two
  documents ranked among the 12 least alike in 97% of 300 random swaps; swapped within one
  document, in 40%; swapped with the next node's, in 7% (24 suspects: 97%, 58%, 13%);
- ``AT_RANDOM`` others, drawn with a seed the caller gives (the generation, so a report can be
  repeated), for damage spread over many rows (rows shifted by one keep agreeing with their
  neighbours, but then nearly every row holds another node's vector).

16 nodes take about a second with the packaged model on two cores.

So plain verify finds nearly every vector moved between documents, and many moved within one;
only every node's check (``--embeddings``) finds them all.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..docstore import DocStore
from .consistency import unit_rows

SUSPECTS = 12  # nodes least like their neighbours, embedded again
AT_RANDOM = 4  # and this many others, at random
_BATCH = 4096  # vectors read per call


@dataclass(frozen=True, slots=True)
class VectorSample:
    """The node ids a plain verify embeds again, by why they were chosen."""

    suspects: tuple[str, ...]  # least like their neighbours, least alike first
    at_random: tuple[str, ...]

    @property
    def node_ids(self) -> list[str]:
        return [*self.suspects, *self.at_random]


def sample_nodes(docstore: DocStore, store: Any, *, seed: str, suspects: int = SUSPECTS,
                 at_random: int = AT_RANDOM) -> VectorSample:
    """At most ``suspects + at_random`` nodes to embed again (reads every vector once)."""
    if suspects < 0 or at_random < 0:
        raise ValueError(f"suspects ({suspects}) and at_random ({at_random}) must be 0 or more")
    ids, likeness = neighbour_likeness(docstore, store)
    order = np.argsort(likeness, kind="stable")  # nodes alone in their document (inf) last
    chosen = [ids[i] for i in order[:suspects].tolist() if np.isfinite(likeness[i])]
    taken = set(chosen)
    rest = [i for i in ids if i not in taken]
    drawn = random.Random(seed).sample(rest, min(at_random, len(rest)))
    return VectorSample(tuple(chosen), tuple(drawn))


def neighbour_likeness(docstore: DocStore, store: Any) -> tuple[list[str], np.ndarray]:
    """Every node id, document by document, and the cosine of its stored vector with the
    nearer of its neighbours' (inf for a node alone in its document: nothing to compare)."""
    ids: list[str] = []
    owner: list[int] = []
    for number, doc_id in enumerate(docstore.doc_ids()):
        node_ids = docstore.doc_node_ids(doc_id)
        ids += node_ids
        owner += [number] * len(node_ids)
    if not ids:
        return ids, np.empty(0)
    links = np.full(max(len(ids) - 1, 0), -np.inf)
    for start in range(0, len(ids) - 1, _BATCH):
        rows = unit_rows(store.get_vectors(ids[start : start + _BATCH + 1]))  # one row overlaps
        links[start : start + len(rows) - 1] = (rows[:-1] * rows[1:]).sum(axis=1)
    owners = np.asarray(owner)
    links[owners[:-1] != owners[1:]] = -np.inf  # no link between two documents
    edge = np.array([-np.inf])
    best = np.maximum(np.concatenate([edge, links]), np.concatenate([links, edge]))
    return ids, np.where(np.isneginf(best), np.inf, best)
