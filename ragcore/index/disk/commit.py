"""A commit: an index's state written as the next generation of its folder, under its locks.

``VectorStoreIndex.persist`` commits: under the index's lock and the folder's writer lock
(``folder.committing``) the docstore and the store link the segments they keep and write what
changed since their last save (the batch) into a fresh generation, and the manifest publishes
it. A commit never runs the size-tiered merges: the merger (``merger``) writes them outside the
lock and hands the result over (``hand_over``); the next commit installs it first (swapping the
merged segments in, which costs no writing) and links it as any kept segment.
"""

from __future__ import annotations

import weakref
from pathlib import Path
from typing import Any, Protocol

from ...stores.consistency import settle_rows
from .folder import committing, revision_to_write
from .manifest import splitter_spec


class Handover(Protocol):
    """A merge written and waiting for a commit to install it."""

    def install(self) -> None: ...  # under both locks, before the commit writes

    def finish(self, published: bool) -> None: ...  # after the commit, published or not


_WAITING: weakref.WeakKeyDictionary[Any, Handover] = weakref.WeakKeyDictionary()


def hand_over(index: Any, merge: Handover) -> None:
    """Let the next commit of ``index`` install ``merge`` (call under the index's lock)."""
    _WAITING[index] = merge


def merge_waiting(index: Any) -> bool:
    return index in _WAITING


def commit_index(index: Any, path: Path) -> None:  # a VectorStoreIndex
    """Write ``index`` into ``path`` as its next generation, published atomically (readers see
    the old or the new index, never a mix), with the merge handed over, if any."""
    state = index._state
    window = index._embedder.max_input_tokens if index._embedder else state.model_window
    with index._lock:
        merge, published = _WAITING.pop(index, None), False
        try:
            with committing(path) as commit:  # holds the folder's writer lock
                if merge is not None:
                    merge.install()
                state.remove_nodes(settle_rows(state.store, state.docstore.node_ids,
                                               len(state.docstore), where=path))
                revision = revision_to_write(path, state)
                state.docstore.persist(commit.folder)
                state.store.persist(commit.folder)  # before the manifest: it records the ids
                commit.publish(state.manifest(
                    model=index.embed_model_name, max_input_tokens=window,
                    splitter=splitter_spec(index._splitter), revision=revision,
                ))
                published = commit.published
            state.mark_saved(path, revision)
        finally:
            if merge is not None:
                merge.finish(published)
