"""The PgIndex benchmark runs end to end at a tiny size on a real Postgres (figures unchecked:
timings belong in the benchmark, not in tests)."""

from __future__ import annotations

from benchmarks import bench_pg_index


def test_the_pg_index_benchmark_reports_every_figure_at_a_tiny_size(postgres_url):
    rows = {row.metric: row for row in bench_pg_index.run(rows=400, url=postgres_url)}
    for metric in ("load PgIndex 400", "load embedded 400", "bytes on the server",
                   "bytes per chunk (server)", "HNSW index bytes per chunk",
                   "postings rows per chunk", "hybrid p50 PgIndex 400",
                   "hybrid p50 embedded 400", "hybrid p50 ratio PgIndex / embedded",
                   "keyword p50 PgIndex 400", "keyword p50 ratio PgIndex / embedded"):
        assert rows[metric].value is not None and rows[metric].value > 0, metric
    # Below 10k nodes both sides search exactly and BM25 is the same formula: the same top-5.
    assert rows["hybrid top-5 identical lists"].value == 1.0
    assert rows["keyword top-5 identical lists"].value == 1.0


def test_chunks_are_real_sentences_and_later_passes_differ():
    sentences = ["One two three.", "Four five six!", "Seven eight nine?"] * 40
    chunks = bench_pg_index.chunk_texts(sentences, 20)
    assert len(chunks) == 20 and all(len(c.split()) >= bench_pg_index.CHUNK_WORDS
                                     for c in chunks)
    assert chunks[0].startswith("One two three.")
