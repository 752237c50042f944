"""The merger: an index's size-tiered segment merges, run after its commits, never in them.

A commit writes its batch as new segments and nothing else (``commit``), so its cost follows
the batch. The segments then grow in number; ``merge_segments`` runs the merges a size tier
asks for (``ragcore.stores.simple.segments.plan_merges``: ten segments of one tier make one of the
next) in the docstore's node and record segments (``segment_merge``) and the store's vector
segments (``ragcore.stores.simple.merge``), in three steps:

1. **plan**, under the index's lock and the folder's writer lock: note the runs of segments to
   merge and the rows held in them; make the merger's folder ``merge-<random>`` (which no
   manifest names) and hold it and the current generation locked as a reader does, so no
   commit's garbage collection removes either meanwhile;
2. **write**, with no lock held (commits, deletes and queries go on): each run's rows as one
   segment in the merger's folder, with its keyword postings and, when big, its approximate
   index (``ann.faiss``);
3. **install**, under the index's lock again: each merged segment takes its run's place in the
   index's segments when they are all still there (else that run is dropped), rows deleted
   since the plan marked dead, and a commit publishes the result as the next generation,
   exactly as any commit (links of the kept segments and the merged ones, manifest last): the
   merger's own commit when the index has nothing uncommitted, else the writer's next one
   (``commit.hand_over``: a merger never publishes a writer's half-done changes).

Crash safety: a process killed while writing leaves a ``merge-*`` folder that no manifest names,
removed at the next open or commit like an unpublished generation; killed while installing, it
is a commit's crash. Readers see one manifest, old or new, as always. ``BackgroundMerger`` runs
this in a thread of the writing process after each of its commits (an ingestion:
``ragcore.workspace.ingest.index_files``), one merge at a time, so the segment count stays bounded and the
next commit waits for the merge's install, never for its writing.
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...stores.simple.merge import StoreMerge
from .commit import commit_index, hand_over, merge_waiting
from .folder import current_data
from .generations import merge_folder, reading, writer_lock
from .segment_merge import SegmentsMerge

log = logging.getLogger(__name__)


@dataclass(slots=True)
class Plan:
    """One merge's runs of each kind of segment (None: none due there)."""

    nodes: SegmentsMerge | None
    docs: SegmentsMerge | None
    store: StoreMerge | None


def merges_due(index: Any) -> bool:  # a VectorStoreIndex
    """Whether the index's saved segments are due a size-tiered merge (and none waits)."""
    state = index._state
    if merge_waiting(index):
        return False
    store_due = getattr(state.store, "merges_due", None)
    return state.docstore.merges_due() or (store_due is not None and bool(store_due()))


def merge_segments(index: Any, path: Path) -> bool:
    """Run the merges due in ``index``, persisted at ``path``, as a new generation of it (the
    three steps of the module docstring); False (nothing written) when none is due. The
    install is the next commit's when the index has changes not committed yet (its content
    is published only by its own commits), else a commit of its own, now."""
    path = Path(path)
    held, planned = ExitStack(), ExitStack()  # the merger's folder; the planned generation
    try:
        with index._lock:
            if index._state.path != path or not merges_due(index):
                return False
            with writer_lock(path):
                plan = plan_merge(index)
                if plan is None:
                    return False
                folder = held.enter_context(merge_folder(path))
                planned.enter_context(reading(current_data(path)))  # its files stay
        with planned:
            write_merge(plan, folder, index)
    except BaseException:
        planned.close()
        held.close()
        raise
    with index._lock:
        hand_over(index, Install(plan, index, held))
        if index._state.in_sync_with(path):
            commit_index(index, path)  # installs it
    return True


def plan_merge(index: Any) -> Plan | None:
    """Step 1: the runs due in each kind of segment (under the locks)."""
    docstore, store = index._state.docstore, index._state.store
    plan = Plan(SegmentsMerge.plan("nodes", docstore._disk),
                SegmentsMerge.plan("docs", docstore._docs_disk),
                StoreMerge.plan(store) if hasattr(store, "merges_due") else None)
    return None if plan.nodes is plan.docs is plan.store is None else plan


def write_merge(plan: Plan, folder: Path, index: Any) -> None:
    """Step 2: the merged segments, written into the merger's ``folder`` (no lock held)."""
    for part in (plan.nodes, plan.docs):
        if part is not None:
            part.write(folder)
    if plan.store is not None:
        plan.store.write(folder, index._state.store._ann)


@dataclass(slots=True)
class Install:
    """Step 3: a written merge, installed by the next commit (``commit.hand_over``)."""

    plan: Plan
    index: Any
    held: ExitStack  # the merger's folder, locked

    def install(self) -> None:
        """The merged segments in place of their runs (under the index's and writer locks)."""
        docstore, store, plan = self.index._state.docstore, self.index._state.store, self.plan
        if plan.nodes is not None:
            docstore._disk = plan.nodes.install(docstore._disk)
        if plan.docs is not None:
            docstore._docs_disk = plan.docs.install(docstore._docs_disk)
        if plan.store is not None:
            plan.store.install(store)

    def finish(self, published: bool) -> None:
        """Remove the merger's folder: its files are linked into the generation now, or, if
        the commit failed, gone with it (the next commit finds the merged segments' files
        missing and writes every row again, as for any segment it cannot link)."""
        self.held.close()


class BackgroundMerger:
    """Runs ``merge_segments`` in a thread after each commit of one writer (one at a time)."""

    def __init__(self, index: Any, path: Path | None) -> None:
        self.index, self.path = index, path  # None: an index in a database (nothing to merge)
        self.merges = 0  # merges written
        self.seconds = 0.0  # spent merging
        self.error: Exception | None = None  # the last merge's failure (the index is intact)
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start merging in the background if a merge is due and none is running."""
        if self.path is None or self.running():
            return
        with self.index._lock:
            due = merges_due(self.index)
        if due:
            self._thread = threading.Thread(target=self._run, daemon=True,
                                            name="ragcore-merger")
            self._thread.start()

    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

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
