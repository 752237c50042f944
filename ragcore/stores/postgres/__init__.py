"""Vectors in Postgres with pgvector.

    pgvector.py  PGVectorStore: the VectorStore protocol over one table (HNSW index)
    filters.py   metadata filters as a WHERE clause over a JSONB column, values bound
    connect.py   connecting without writing a password down (URL, $RAGCORE_PG_PASSWORD, libpq)
"""
