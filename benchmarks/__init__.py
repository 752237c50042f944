"""ragcore benchmarks: `python -m benchmarks [--quick]` prints a table and writes JSON to results/.

Not tests: figures depend on the machine. Each module has a ``run()`` returning rows
(``harness.Row`` or dicts); ``__main__`` runs them in order and reports targets beside figures.

    harness.py    rows, timing, the corpus location, peak memory, the table and its JSON
    pipeline/     load, split, embed, persist; query overhead; the app's cold start
    retrieval/    nDCG@10, recall, MRR per mode; advanced retrievers; hybrid's variants
    embedding/    the packaged embedder's variants: speed, agreement, quality
    ingest/       ingest against bare encode, peak memory, queued workers, PDF text
    stores/       numpy, Chroma, Postgres; top-5 latency; ANN libraries; PgIndex
    index/        commit cost as the index grows, 1M vectors, readers beside a writer
    llm/          the offline answerer's answers, the packaged language model's speed
    answers/      the question sets and measures of answers (data and their readers)
    grounding/    the claims set that fits the grounding verdict
"""
