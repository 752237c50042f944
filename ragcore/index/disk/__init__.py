"""The index folder on disk: one whole generation read, the next committed, old ones removed.

    folder.py        the index folder: open one whole generation, commit the next, revision
    generations.py   generation folders, the writer and reader locks, removing debris
    manifest.py      manifest.json: what an index folder records about itself
    commit.py        a commit: the index written as the next generation (its batch, no merge)
    node_file.py     nodes.jsonl and its byte offsets, read through a memory map
    node_segments.py the docstore's segments of node files, linked forward and merged
    doc_segments.py  the docstore's segments of document records, likewise
    merger.py        the size-tiered segment merges: planned, written outside the lock, installed
    segment_merge.py the docstore's side of a merge (node and document record segments)
    checksums.py     file checksums recorded at commit and checked at load
    bindings.py      digests of the ordered id lists, binding the files' rows together
    verify.py        the full check behind ``ragcore verify``
    consistency.py   verify's cross-checks of the records against one another
"""
