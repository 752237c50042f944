"""A commit: an index's state written as the next generation of its folder, under its locks.

``VectorStoreIndex.persist`` commits: under the index's lock and the folder's writer lock
(``folder.committing``) the docstore and the store link the segments they keep and write what
changed since their last save (the batch) into a fresh generation, and the manifest publishes
it. A commit never runs the size-tiered merges: ``merger`` does, after it, with ``merge``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..stores.consistency import settle_rows
from .folder import committing, revision_to_write
from .manifest import splitter_spec



def commit_index(index: Any, path: Path, *, merge: bool = False) -> None:  # VectorStoreIndex
    """Write ``index`` into ``path`` as its next generation, published atomically (readers see
    the old or the new index, never a mix); ``merge``: with the size-tiered merges due."""
    state = index._state
    window = index._embedder.max_input_tokens if index._embedder else state.model_window
    with index._lock:
        with committing(path) as commit:  # holds the folder's writer lock
            state.remove_nodes(settle_rows(state.store, state.docstore.node_ids,
                                           len(state.docstore), where=path))
            revision = revision_to_write(path, state)
            state.docstore.persist(commit.folder, merge=merge)
            if merge and hasattr(state.store, "merges_due"):  # a store with segments
                state.store.persist(commit.folder, merge=True)  # type: ignore[call-arg]
            else:  # before the manifest: it records the ids
                state.store.persist(commit.folder)
            commit.publish(state.manifest(
                model=index.embed_model_name, max_input_tokens=window,
                splitter=splitter_spec(index._splitter), revision=revision,
            ))
        state.mark_saved(path, revision)
