"""An index that lives wholly in Postgres: ``PgIndex`` over the tables ``catalog`` names.

``catalog`` (the shared catalog, history and task tables, and each index's own tables),
``keyword_sql`` (BM25 from postings tables), ``pg_index`` (reads in one snapshot, changes in one
transaction per commit). Needs psycopg and pgvector (``pip install 'ragcore[postgres]'``).
"""

from __future__ import annotations

from .pg_index import PgIndex

__all__ = ["PgIndex"]
