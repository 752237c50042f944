"""The index: documents split into nodes, nodes embedded into a vector store, kept on disk.

    vector_index.py  VectorStoreIndex: insert, delete, refresh, search, persist, load
    engines.py       the query engine and chat engines built over an index (as_query_engine ...)
    docstore.py      node records and per-document info, node records read lazily
    node_file.py     nodes.jsonl and its byte offsets, read through a memory map
    refresh.py       which documents an upsert (re)indexes, and the input checks
    folder.py        the index folder: manifest, atomic replace, recovery after a crash
    keyword.py       BM25 postings over the nodes, built on the first keyword query

Only ``VectorStoreIndex`` and its reports are public; the other modules serve it.
"""

from .docstore import DocInfo
from .refresh import RefreshReport
from .vector_index import VectorStoreIndex

__all__ = ["DocInfo", "RefreshReport", "VectorStoreIndex"]
