"""Memory bounded by the batch: an ingestion never holds more unsaved chunks than a few batches.

Saves are spaced by ``SAVE_SHARE`` times the last save's duration, so a slow save (a merge)
with a fast embedder used to let the next batch grow with the corpus (tens of thousands of
chunks, nodes, vectors and postings in memory). ``MAX_DEFERRED`` batches is the most a save
waits for.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

from ragcore.workspace.commits import MAX_DEFERRED, Batching, Commits


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
