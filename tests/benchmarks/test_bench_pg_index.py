"""The PgIndex benchmark runs end to end at a tiny size on a real Postgres (figures unchecked:
timings belong in the benchmark, not in tests)."""

from __future__ import annotations

import pytest

from benchmarks.stores import bench_pg_index, pg_fulltext


@pytest.fixture(scope="module")
def rows(postgres_url):
    return {row.metric: row for row in bench_pg_index.run(rows=400, url=postgres_url)}


def test_the_pg_index_benchmark_reports_every_figure_at_a_tiny_size(rows):
    for metric in ("load PgIndex 400", "load embedded 400", "bytes on the server",
                   "bytes per chunk (server)", "HNSW index bytes per chunk",
                   "postings rows per chunk", "hybrid p50 PgIndex 400",
                   "hybrid p50 embedded 400", "hybrid p50 ratio PgIndex / embedded",
                   "keyword p50 PgIndex 400", "keyword p50 ratio PgIndex / embedded"):
        assert rows[metric].value is not None and rows[metric].value > 0, metric
    # Below 10k nodes both sides search exactly and BM25 is the same formula: the same top-5.
    assert rows["hybrid top-5 identical lists"].value == 1.0
    assert rows["keyword top-5 identical lists"].value == 1.0


def test_the_full_text_side_is_measured_beside_the_postings_and_dropped(rows, postgres_url):
    from ragcore.stores.postgres.connect import connect

    assert rows["full text: tsvector + GIN build 400"].value > 0
    for side in ("postings BM25", *pg_fulltext.FORMS, "FTS OR, BM25 in SQL"):
        assert rows[f"keyword top-10 p50 {side} 400"].value > 0, side
    # The postings side is the embedded index's BM25 exactly; the full-text table is dropped.
    assert rows["postings BM25: top-5 identical to embedded BM25"].value == 1.0
    assert "overlap@10" in rows["FTS OR, BM25 in SQL: top-5 identical to embedded BM25"].note
    with connect(postgres_url) as conn:
        assert not conn.execute("SELECT 1 FROM pg_tables WHERE tablename LIKE 'rc\\_%\\_fts'"
                                ).fetchall()


def test_chunks_are_real_sentences_and_later_passes_differ():
    sentences = ["One two three.", "Four five six!", "Seven eight nine?"] * 40
    chunks = bench_pg_index.chunk_texts(sentences, 20)
    assert len(chunks) == 20 and all(len(c.split()) >= bench_pg_index.CHUNK_WORDS
                                     for c in chunks)
    assert chunks[0].startswith("One two three.")
