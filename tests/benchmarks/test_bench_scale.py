"""The scale benchmark runs end to end on a small index (its figures are not checked: timings
belong in the benchmark, not in tests)."""

from __future__ import annotations

from benchmarks.index import bench_scale


def test_the_scale_benchmark_reports_every_figure_for_a_small_index():
    rows = {row.metric: row for row in bench_scale.run(sizes=(3_000,), thread_queries=5)}
    for metric in ("add 2k batch at 3k", "commit bytes per 2k batch at 3k", "load at 3k",
                   "first hybrid query after load at 3k", "next vector query at 3k",
                   "top-10 ANN p50 / p95 at 3k", "commit 2k batch at 3k / into a 2k index",
                   "filtered top-10 (one document) p50 at 3k", "peak RSS after 3k",
                   "top-5 over 10k, one thread (query path)"):
        assert rows[metric].value is not None and rows[metric].value > 0, metric
    recall = rows["recall@10 ANN vs exact at 3k"]
    assert recall.value == 1.0 and recall.ok is None  # below the threshold: exact, no verdict


def test_bytes_written_skip_a_generation_a_merge_removes_during_the_walk(tmp_path, monkeypatch):
    from benchmarks.index import bench_commit

    (tmp_path / "gen-1").mkdir()
    (tmp_path / "gen-1" / "old").write_bytes(b"x" * 10)
    (tmp_path / "gen-2").mkdir()
    (tmp_path / "gen-2" / "new").write_bytes(b"y" * 7)
    real_stat = bench_commit.os.stat

    def stat(name, *args, **kwargs):  # the merger removed gen-1 after the walk listed it
        if "gen-1" in str(name):
            raise FileNotFoundError(name)
        return real_stat(name, *args, **kwargs)

    monkeypatch.setattr(bench_commit.os, "stat", stat)
    assert bench_commit.new_bytes(tmp_path, set()) == 7
