"""Ingestion commits in batches: when to save the index, and stopping on request.

An ingestion saves (persists) the index after every batch of work: when enough chunks were
added since the last save, or enough seconds passed, and once at the end. So a cancel, a crash
(even SIGKILL) or a closed browser tab keeps every batch saved before it, and the folder on disk
always holds one complete generation (``VectorStoreIndex.persist`` is atomic). A save rewrites
the index folder, so saves are spaced by at least ``SAVE_SHARE`` times the last save's own
duration: however big the index grows, saving costs at most about a tenth of the ingestion.
That spacing never defers a save past ``MAX_DEFERRED`` batches of chunks: the unsaved work
(nodes, vectors, postings) is what an ingestion holds in memory, so with a fast embedder a
slow save must not let the next batch grow with the corpus (merges are not a save's: a thread
runs them after it, ``ragcore.index.disk.merger``).

A document still being embedded when a batch is saved goes in with the chunks embedded so far
and the metadata key ``PARTIAL_KEY`` ("1200 of 15724 chunks"): the key changes the document's
content hash, so the app can say it is incomplete and ingesting the file again (or resuming the
job) goes on from its 1201st chunk when its content and chunking are the same (``ingest``), or
re-does it in full when they changed. ``Cancelled`` is raised inside the embedding loop when
``cancel()`` says so; ``ingest`` catches it, keeps what was finished and saves.
"""

from __future__ import annotations

import ctypes
import time
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

from ..handle import IndexHandle

PARTIAL_KEY = "ingest_incomplete"
SAVE_SHARE = 10  # at least this many times the last save's duration passes between saves
MAX_DEFERRED = 4  # ...unless this many batches of chunks are waiting: memory bounds the batch


def release_freed_memory() -> None:
    """Give the memory freed since the last save back to the system (glibc's ``malloc_trim``;
    nothing elsewhere). glibc keeps freed blocks in its heap: without this, the batches' nodes,
    vectors and postings freed at each save stayed resident (a 50 MB text: 277 MB after its
    ingestion, 130 MB once trimmed), and the next save's peak came on top of them."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@lru_cache(maxsize=1)
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # not glibc (macOS, Windows, musl)
        return None


class Cancelled(Exception):
    """Raised between batches when the ingestion was asked to stop (not an error)."""


@dataclass(slots=True, frozen=True)
class Batching:
    """How much work goes into one commit, and how often a running ingestion checks for cancel.

    ``chunks``: save once this many chunks were added since the last save; ``seconds``: save
    once this long passed since the last save with something new; ``slice``: the most chunks
    embedded between two checks (cancel, commit due); fewer when the embedder is slow.
    """

    chunks: int = 2000
    seconds: float = 20.0
    slice: int = 512


@dataclass(slots=True)
class Commits:
    """Tracks unsaved work on one open index and saves it when a batch is due."""

    handle: IndexHandle
    batching: Batching = field(default_factory=Batching)
    on_commit: Callable[[list[str]], None] | None = None  # gets the files saved complete
    on_writing: Callable[[], None] | None = None  # called just before each save
    after_save: Callable[[], None] | None = None  # called after each save (starts the merger)
    cancel: Callable[[], bool] | None = None
    count: int = 0  # saves made
    finished: list[str] = field(default_factory=list)  # files done (saved or to be saved)
    _pending: int = 0
    _last: float = field(default_factory=time.monotonic)
    _last_cost: float = 0.0  # seconds the last save took
    _saved_revision: int = -1

    def __post_init__(self) -> None:
        self._saved_revision = self.handle.index.revision

    def check_cancel(self) -> None:
        """Raise ``Cancelled`` if the caller asked to stop."""
        if self.cancel is not None and self.cancel():
            raise Cancelled()

    def added(self, chunks: int) -> None:
        self._pending += chunks

    def file_done(self, path: str) -> None:
        self.finished.append(path)

    @property
    def dirty(self) -> bool:
        return self.handle.index.revision != self._saved_revision or not self.handle.saved()

    def due(self) -> bool:
        """Whether a batch is full (enough chunks, or enough time with something new)."""
        if not (self._pending or self.dirty):
            return False
        if self._pending >= MAX_DEFERRED * self.batching.chunks:
            return True
        since = time.monotonic() - self._last
        if since < SAVE_SHARE * self._last_cost:
            return False
        return self._pending >= self.batching.chunks or since >= self.batching.seconds

    def save(self) -> None:
        """Save the index if it changed, then report the files finished so far."""
        if self.dirty:
            if self.on_writing is not None:
                self.on_writing()
            started = time.monotonic()
            self.handle.save()
            release_freed_memory()
            self._last_cost = time.monotonic() - started
            self.count += 1
            self._saved_revision = self.handle.index.revision
            if self.after_save is not None:
                self.after_save()
        self._pending = 0
        self._last = time.monotonic()
        if self.on_commit is not None:
            self.on_commit(list(self.finished))
