"""What changed in a docstore since its last save or load: what its next save writes, and how.

A save writes the records of the nodes added since (``fresh``) and of the documents added or
changed (``dirty``: a document whose node count changed is changed). While the changes are an
ingestion's, nodes and documents added after all the others in the docstore's order (nodes of
documents added, nodes without a document), ``appended_nodes`` and ``appended_docs`` list them
in that order and the save appends them (``NodeSegments.append``, ``DocSegments.append``)
without listing what it keeps: the batch's cost, whatever the size of the index. Anything else
(a node or document removed, a node added to a document saved, a saved document changed) makes
them None and the save the general one, which looks up every node and document
(``NodeSegments.save``, ``DocSegments.save``). ``docstore`` reports every change here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence


@dataclass(slots=True)
class Changes:
    """A docstore's changes since its last save or load."""

    fresh: set[str] = field(default_factory=set)  # nodes added: their records are not on disk
    dirty: set[str] = field(default_factory=set)  # documents whose records are to be written
    new_docs: dict[str, None] = field(default_factory=dict)  # documents added, in order
    nodes_appended: bool = True  # every node added follows the nodes saved, none removed
    docs_appended: bool = True  # no document saved changed or removed: the dirty are new
    saved_loose: int = 0  # nodes without a document then: they follow every document's

    def doc_added(self, doc_id: str) -> None:
        self.new_docs[doc_id] = None  # a dict keeps the docstore's order: at the end
        self.dirty.add(doc_id)

    def doc_changed(self, doc_id: str) -> None:
        if doc_id not in self.new_docs:
            self.docs_appended = False  # its record is in a segment kept: rewritten
        self.dirty.add(doc_id)

    def doc_removed(self, doc_id: str) -> None:
        if doc_id in self.new_docs:
            del self.new_docs[doc_id]
        else:
            self.docs_appended = False  # a document saved: its segment is rewritten
        self.dirty.discard(doc_id)

    def node_added(self, node_id: str, doc_id: str | None) -> None:
        self.fresh.add(node_id)
        if doc_id is not None:
            # Its document's nodes come before those of later documents and the loose ones.
            if doc_id not in self.new_docs or self.saved_loose:
                self.nodes_appended = False
            self.doc_changed(doc_id)  # its node count

    def nodes_removed(self, node_ids: Sequence[str]) -> None:
        self.nodes_appended = self.nodes_appended and not node_ids
        self.fresh.difference_update(node_ids)

    def appended_nodes(self, docs: dict[str, Any], loose: list[str]) -> list[str] | None:
        """The nodes added, in the docstore's order, if they all follow the nodes saved
        (``docs``: the docstore's entries; ``loose``: its nodes without a document)."""
        if not self.nodes_appended:
            return None
        added = [i for doc_id in self.new_docs for i in docs[doc_id].node_ids]
        added += loose[self.saved_loose:]
        return added if len(added) == len(self.fresh) else None

    def appended_docs(self) -> list[str] | None:
        """The documents added, in order, if no document saved changed or went."""
        if not self.docs_appended or len(self.new_docs) != len(self.dirty):
            return None
        return list(self.new_docs)

    def saved(self, loose: int) -> None:
        """Start again: everything is on disk, with ``loose`` nodes without a document."""
        self.fresh.clear()
        self.dirty.clear()
        self.new_docs.clear()
        self.nodes_appended = self.docs_appended = True
        self.saved_loose = loose
