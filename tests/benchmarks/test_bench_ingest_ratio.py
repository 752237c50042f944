"""The ingest/encode ratio benchmark runs end to end on a small index (figures unchecked)."""

from __future__ import annotations

from benchmarks.ingest import bench_ingest_ratio


def test_the_ingest_ratio_benchmark_reports_its_figures():
    rows = bench_ingest_ratio.run(chunks=300, model=lambda text: 0.05)
    values = {row.metric: row.value for row in rows}
    assert all(v is not None and v > 0 for v in values.values()), values
    ratio = rows[-1]
    assert ratio.metric.startswith("ingest / bare encode time") and ratio.value >= 1.0
    assert ratio.ok is not None  # a full run judges the goal
