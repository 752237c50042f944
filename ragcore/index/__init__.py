"""The index: documents split into nodes, nodes embedded into a vector store, kept on disk.

    vector_index.py  VectorStoreIndex: insert, delete, refresh, search, persist, load
    state.py         IndexState: store + docstore + manifest facts + revision, changed together
    split_embed.py   documents to nodes and vectors (the slow steps, run outside the lock)
    engines.py       the query engine and chat engines built over an index (as_query_engine ...)
    docstore.py      node records and per-document info, node records read lazily
    node_file.py     nodes.jsonl and its byte offsets, read through a memory map
    node_segments.py the docstore's segments of node files, linked forward and merged
    doc_segments.py  the docstore's segments of document records, likewise
    refresh.py       which documents an upsert (re)indexes, and the input checks
    manifest.py      manifest.json: what an index folder records about itself
    folder.py        the index folder: open one whole generation, commit the next, revision
    commit.py        a commit: the index written as the next generation (its batch, no merge)
    merger.py        the size-tiered segment merges: planned, written outside the lock, installed
    segment_merge.py the docstore's side of a merge (node and document record segments)
    generations.py   generation folders, the writer and reader locks, removing debris
    checksums.py     file checksums recorded at commit and checked at load
    bindings.py      digests of the ordered id lists, binding the files' rows together
    verify.py        the full check behind ``ragcore verify``
    consistency.py   verify's cross-checks of the records against one another
    keyword.py       BM25 postings over the nodes, built on the first keyword query

Only ``VectorStoreIndex`` and its reports are public; the other modules serve it, except
``folder.read_revision`` for caches that watch an index folder from another process.
"""

from .docstore import DocInfo
from .refresh import RefreshReport
from .vector_index import VectorStoreIndex

__all__ = ["DocInfo", "RefreshReport", "VectorStoreIndex"]
