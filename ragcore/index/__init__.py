"""The index: documents split into nodes, nodes embedded into a vector store, kept on disk.

    vector_index.py  VectorStoreIndex: insert, delete, refresh, search, persist, load
    state.py         IndexState: store + docstore + manifest facts + revision, changed together
    split_embed.py   documents to nodes and vectors (the slow steps, run outside the lock)
    refresh.py       which documents an upsert (re)indexes, and the input checks
    docstore.py      node records and per-document info, node records read lazily
    doc_entries.py   the docstore's per-document entries
    changes.py       what changed since the last save: what the next commit writes
    keyword.py       BM25 postings over the nodes, built on the first keyword query
    keyword_parts.py postings.py   the keyword index's parts and its postings on disk
    engine_methods.py  as_retriever / as_query_engine / as_chat_engine, for both homes
    disk/            the index folder: generations, commits, checksums, merges, verify
    database/        PgIndex: an index wholly in Postgres (catalog, writer, BM25 and vector SQL)

The query and chat engines built over an index live in ``ragcore.engines`` (``from_index``).
Only ``VectorStoreIndex`` and its reports are public; the other modules serve it, except
``disk.folder.read_revision`` for caches that watch an index folder from another process.
"""

from .docstore import DocInfo
from .refresh import RefreshReport
from .vector_index import VectorStoreIndex

__all__ = ["DocInfo", "RefreshReport", "VectorStoreIndex"]
