"""An atomic write never leaves a torn file, and a writer killed before its rename leaves no
debris for good: the next write of the same file removes the dead writer's temporary file."""

from __future__ import annotations

import subprocess
import sys

from ragcore.workspace.files import write_bytes_atomic, write_json_atomic


def _dead_pid() -> int:
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_a_write_replaces_the_file_whole(tmp_path):
    target = tmp_path / "index.json"
    write_json_atomic(target, {"a": 1})
    write_bytes_atomic(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in tmp_path.iterdir()] == ["index.json"]


def test_the_next_write_removes_a_dead_writers_temporary_file(tmp_path):
    target = tmp_path / "drill.json"
    orphan = tmp_path / f".drill.json.{_dead_pid()}.abc123.tmp"
    orphan.write_text("{")  # killed between writing and the rename
    write_json_atomic(target, {"ok": True})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drill.json"]


def test_a_live_writers_temporary_file_and_other_files_stay(tmp_path):
    target = tmp_path / "drill.json"
    live = tmp_path / f".drill.json.{1}.abc123.tmp"  # pid 1 runs as long as the machine
    other = tmp_path / ".other.json.999999999.x.tmp"  # another file's: not ours to judge
    live.write_text("{")
    other.write_text("{")
    write_json_atomic(target, {"ok": True})
    assert live.exists() and other.exists()
