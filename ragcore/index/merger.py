"""The merger: an index's size-tiered segment merges, run after its commits, never in them.

A commit writes its batch as new segments and nothing else (``commit``), so its cost follows
the batch. The segments then grow in number; ``merge_segments`` runs the merges a size tier
asks for (``ragcore.stores.segments.plan_merges``: ten segments of one tier make one of the
next) in the docstore's node and record segments and the store's vector segments, the merged
vectors' approximate index (``ann.faiss``) included, and writes the result as a new generation
exactly as a commit does (crash safe: a process killed meanwhile leaves an unpublished
generation, removed at the next open). When no tier is due it writes nothing.

``BackgroundMerger`` runs it in a thread of the writing process after each of its commits (an
ingestion: ``ragcore.workspace.ingest``), one merge at a time, so the segment count stays
bounded without the commit waiting for a merge.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

from .commit import commit_index


log = logging.getLogger(__name__)


def merges_due(index: Any) -> bool:
    """Whether the index's saved segments are due a size-tiered merge."""
    state = index._state
    store_due = getattr(state.store, "merges_due", None)
    return state.docstore.merges_due() or (store_due is not None and bool(store_due()))


def merge_segments(index: Any, path: Path) -> bool:
    """Run the merges due in ``index``, persisted at ``path``, as a new generation of it;
    False (nothing written) when none is due."""
    with index._lock:
        if not merges_due(index):
            return False
        commit_index(index, Path(path), merge=True)
    return True


class BackgroundMerger:
    """Runs ``merge_segments`` in a thread after each commit of one writer (one at a time)."""

    def __init__(self, index: Any, path: Path) -> None:
        self.index, self.path = index, Path(path)
        self.merges = 0  # merges written
        self.seconds = 0.0  # spent merging
        self.error: Exception | None = None  # the last merge's failure (the index is intact)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start merging in the background if a merge is due and none is running."""
        if self._thread is not None and self._thread.is_alive():
            return
        with self.index._lock:
            due = merges_due(self.index)
        if due:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="ragcore-merger")
            self._thread.start()

    def wait(self) -> None:
        """Block until the running merge (if any) is written."""
        if self._thread is not None:
            self._thread.join()

    def _run(self) -> None:
        started = time.monotonic()
        try:
            while merge_segments(self.index, self.path):  # a merge may tip the next tier
                self.merges += 1
        except Exception as exc:  # noqa: BLE001  (the commits are safe; the next start retries)
            self.error = exc
            log.warning("merging the segments of %s failed: %s", self.path, exc)
        self.seconds += time.monotonic() - started
