"""Drills of the merger with real processes (tests/support/index_drill.py does the work): a writer killed
while its merger writes or installs, and readers racing a writer whose merger runs in the
background (killed at random moments while it runs: tests/test_index_drills.py). Every load is one commit's index, whole, and nothing the killed writer committed is
lost; what a killed merger left is removed at the next open."""

from __future__ import annotations

import os
import signal
import sys

import pytest
from test_index_drills import (  # noqa: F401 - index_path: the fixture
    HERE, SECONDS, _last_line, _left_over, _start, index_path,
)

sys.path.insert(0, str(HERE))

from support import index_drill  # noqa: E402


@pytest.mark.slow
@pytest.mark.parametrize("step", ["writing", "installing"])
def test_a_writer_killed_while_its_merger_works_leaves_its_last_commit_whole(index_path, step,
                                                                            monkeypatch):
    from ragcore.stores.simple import segments

    monkeypatch.setattr(segments, "FACTOR", 2)  # as in the writer
    writer = _start(f"merge-{step}", index_path, 0)
    assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
    assert writer.stdout.readline().strip() == step, writer.stderr.read()
    os.kill(writer.pid, signal.SIGKILL)
    writer.communicate(timeout=60)
    left = _left_over(index_path)
    assert [n for n in left if n.startswith("merge-")], left  # killed inside the merge
    if step == "installing":
        assert [n for n in left if n.startswith("gen-")], left  # its commit's generation
    assert index_drill.check_appended(index_path) == 1  # both commits, the merge never was
    assert _left_over(index_path) == []  # the next open removed what the merger left
    index = index_drill.VectorStoreIndex.load(index_path, embedder=index_drill.FakeEmbedder(),
                                              splitter=index_drill.ParagraphSplitter())
    assert index.merge_segments(index_path)  # and merges it, this time to the end
    assert index_drill.check_appended(index_path) == 1


@pytest.mark.slow
def test_readers_never_see_a_failed_or_mixed_load_while_a_merger_runs(index_path):
    writer = _start("merging", index_path, SECONDS)
    assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
    readers = [_start("appended_reader", index_path, SECONDS) for _ in range(2)]
    results = [_last_line(proc) for proc in readers]
    made = _last_line(writer)
    loads = sum(r["loads"] for r in results)
    failed = sum(r["failed"] for r in results)
    mixed = sum(r["mixed"] for r in results)
    sys.stderr.write(f"race with a merger {SECONDS:.0f} s: {made['commits']} commits, "
                     f"{made['merges']} merges, {loads} loads, {failed} failed, {mixed} mixed\n")
    assert failed == 0 and mixed == 0, [r["errors"] for r in results]
    assert made["error"] == "" and made["merges"] > 2 and loads > 2
    assert index_drill.check_appended(index_path) == made["commits"] - 1
    assert _left_over(index_path) == []

