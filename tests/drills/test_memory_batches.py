"""Memory bounded by the batch: an ingestion never holds more unsaved chunks than a few batches.

Saves are spaced by ``SAVE_SHARE`` times the last save's duration, so a slow save (a merge)
with a fast embedder used to let the next batch grow with the corpus (tens of thousands of
chunks, nodes, vectors and postings in memory). ``MAX_DEFERRED`` batches is the most a save
waits for. And a save gives the memory freed since the last one back to the system.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from ragcore.workspace.ingest.commits import MAX_DEFERRED, Batching, Commits, _malloc_trim


class SlowSaveHandle:
    """A handle whose index changes with every chunk added and whose save takes a while."""

    def __init__(self, folder: Path, seconds: float) -> None:
        self.index = SimpleNamespace(revision=0)
        self.folder, self.seconds = folder, seconds
        (folder / "manifest.json").write_text("{}")

    def save(self) -> None:
        time.sleep(self.seconds)


def test_a_slow_save_does_not_let_the_next_batch_grow_past_the_bound(tmp_path):
    handle = SlowSaveHandle(tmp_path, seconds=0.2)  # the next save is spaced by >= 2 s
    commits = Commits(handle, Batching(chunks=10, seconds=3600))  # type: ignore[arg-type]
    commits.added(10)
    handle.index.revision += 1
    assert commits.due()
    commits.save()
    commits.added(10)
    handle.index.revision += 1
    assert not commits.due()  # a full batch waits: saving costs at most a tenth of the work
    commits.added(10 * (MAX_DEFERRED - 1))
    assert commits.due()  # but not past MAX_DEFERRED batches, however slow the last save was


def _anon_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        return next(int(line.split()[1]) / 1024 for line in status if line.startswith("RssAnon"))


@pytest.mark.skipif(not Path("/proc/self/status").exists() or _malloc_trim() is None,
                    reason="needs Linux with glibc")
def test_a_save_gives_the_freed_batch_back_to_the_system(tmp_path):
    """glibc keeps freed blocks in its heap; a save hands them back, so the next batch's peak
    does not come on top of the last one's."""
    handle = SlowSaveHandle(tmp_path, seconds=0)
    commits = Commits(handle, Batching(chunks=10))  # type: ignore[arg-type]
    batch = [bytes(600) + str(i).encode() for i in range(150_000)]  # ~100 MB in malloc's heap
    kept = batch[::500]  # a few survivors: the heap's top cannot simply shrink
    del batch
    held = _anon_mb()
    handle.index.revision += 1
    commits.save()
    assert _anon_mb() < held - 40, (held, _anon_mb())
    assert kept
