"""Drills with real processes on one index folder (tests/support/index_drill.py does the work).

- Race: a writer re-persists versions A and B (equal node counts, different content) while two
  readers load and query in a loop: no load fails and none mixes the versions.
  ``RAGCORE_DRILL_SECONDS`` sets the duration (default 6; the issue's figure is from 60).
- Kill: a writer persisting in a loop is SIGKILLed at a random moment, ``RAGCORE_DRILL_KILLS``
  times (default 20; 100 for the issue's figure): every time, the next load gets A or B whole,
  and leaves no debris (unpublished generations, temp files) behind.
- Kill while appending: a writer adding and deleting a document per commit, merging segments
  every other commit (after its commits, or in a background thread as an ingestion does), is
  SIGKILLed at random moments: the index left verifies completely and is exactly the state after
  one of its commits.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

from support import index_drill  # noqa: E402

SECONDS = float(os.environ.get("RAGCORE_DRILL_SECONDS", "6"))
KILLS = int(os.environ.get("RAGCORE_DRILL_KILLS", "20"))


def _start(role: str, path: Path, seconds: float) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(HERE / "support" / "index_drill.py"), role, str(path), str(seconds)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=HERE.parent,
    )


def _last_line(proc: subprocess.Popen) -> dict:
    """What a drill process printed last (JSON), once it ended well."""
    out, err = proc.communicate(timeout=SECONDS + 120)
    assert proc.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _left_over(path: Path) -> list[str]:
    """What is in and beside the index folder besides its manifest, lock and one generation."""
    inside = sorted(p.name for p in path.iterdir())
    gens = [n for n in inside if n.startswith("gen-")]
    extra = [n for n in inside if n not in ("manifest.json", "writer.lock") and n not in gens[:1]]
    beside = [p.name for p in path.parent.iterdir() if p != path]
    return extra + beside


@pytest.fixture
def index_path(tmp_path):
    path = tmp_path / "index"
    index_drill.build("A").persist(path)
    return path


@pytest.mark.slow
def test_readers_never_see_a_failed_or_mixed_load_while_a_writer_republishes(index_path):
    writer = _start("writer", index_path, SECONDS)
    readers = [_start("reader", index_path, SECONDS) for _ in range(2)]
    results = [_last_line(proc) for proc in readers]
    persists = _last_line(writer)["persists"]
    loads = sum(r["loads"] for r in results)
    failed = sum(r["failed"] for r in results)
    mixed = sum(r["mixed"] for r in results)
    sys.stderr.write(f"race {SECONDS:.0f} s: {persists} persists, {loads} loads, "
                     f"{failed} failed, {mixed} mixed\n")
    assert failed == 0 and mixed == 0, [r["errors"] for r in results]
    assert persists > 2 and loads > 2
    assert sum(r["A"] + r["B"] for r in results) == loads  # every load was one whole version
    assert _left_over(index_path) == []


def _kill_while_writing(role: str, index_path, after: float, kill: int) -> None:
    """Start a ``role`` drill writer and SIGKILL it ``after`` seconds into its writing."""
    writer = _start(role, index_path, 0)
    assert writer.stdout.readline().strip() == "ready", writer.stderr.read()
    try:
        writer.wait(timeout=after)
    except subprocess.TimeoutExpired:
        os.kill(writer.pid, signal.SIGKILL)
    writer.communicate(timeout=60)
    assert writer.returncode == -signal.SIGKILL, f"kill {kill}: the writer ended by itself"


@pytest.mark.slow
def test_a_writer_killed_at_any_moment_leaves_the_old_or_new_index_and_no_debris(index_path):
    expected = index_drill.expected_vectors()
    rng = random.Random(int(os.environ.get("RAGCORE_DRILL_SEED", "10")))
    outcomes = {"A": 0, "B": 0}
    debris_seen = 0
    for kill in range(KILLS):
        _kill_while_writing("writer", index_path, rng.uniform(0.0, 0.5), kill)
        debris_seen += bool(_left_over(index_path))
        outcomes[index_drill.check_load(index_path, expected)] += 1  # never mixed, never fails
        assert _left_over(index_path) == [], f"kill {kill}: debris after the next load"
    sys.stderr.write(f"{KILLS} kills: loads gave {outcomes}; {debris_seen} kills left debris "
                     "that the next load removed\n")
    assert debris_seen > 0  # the kills did land inside persists


@pytest.mark.slow
@pytest.mark.parametrize("role", ["appender", "merging"])  # merging: a BackgroundMerger thread
def test_a_writer_killed_while_appending_and_merging_leaves_one_commit_whole(index_path, role):
    rng = random.Random(int(os.environ.get("RAGCORE_DRILL_SEED", "10")))
    commits = []
    for kill in range(max(KILLS // 2, 4)):
        _kill_while_writing(role, index_path, rng.uniform(0.0, 1.5), kill)
        commits.append(index_drill.check_appended(index_path))  # raises unless one commit whole
        assert _left_over(index_path) == [], f"kill {kill}: debris after the next load"
    sys.stderr.write(f"append kills ({role}): the index was at commits {commits}\n")
    assert commits[-1] > 4  # commits (and merges) did land between the kills
