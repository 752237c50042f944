"""``ragcore bench`` and the benchmark runner's handling of optional and failing modules."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

# benchmarks/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from benchmarks.__main__ import run_group  # noqa: E402
from benchmarks.harness import Row, format_table  # noqa: E402
from ragcore.cli.bench_command import benchmarks_root  # noqa: E402


def test_bench_command_finds_the_checkout():
    assert (benchmarks_root() / "benchmarks" / "__main__.py").is_file()


def test_a_missing_optional_benchmark_becomes_a_row():
    [row] = run_group("app", "bench_not_written_yet", False, quick=True)
    assert row.value is None and row.note.startswith("not available")


def test_a_missing_required_benchmark_is_an_error():
    with pytest.raises(ImportError):
        run_group("x", "bench_not_written_yet", True, quick=True)


def test_a_failing_benchmark_is_reported_and_dict_rows_are_accepted(monkeypatch, capsys):
    broken = types.ModuleType("benchmarks.bench_broken")

    def explode(*, quick):
        raise RuntimeError("boom")

    broken.run = explode
    monkeypatch.setitem(sys.modules, "benchmarks.bench_broken", broken)
    [row] = run_group("broken", "bench_broken", False, quick=True)
    assert "failed: RuntimeError: boom" in row.note

    fine = types.ModuleType("benchmarks.bench_fine")
    fine.run = lambda: [{"metric": "speed", "value": 2.0, "unit": "x", "target": ">= 1",
                         "ok": True}]
    monkeypatch.setitem(sys.modules, "benchmarks.bench_fine", fine)
    rows = run_group("fine", "bench_fine", False, quick=True)
    assert rows == [Row("fine", "speed", 2.0, "x", ">= 1", True)]
    table = format_table(rows)
    assert "speed" in table and "2.00 x" in table and "yes" in table
