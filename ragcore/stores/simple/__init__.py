"""The embedded vector store: numpy rows in segments on disk, exact search, an ANN index for
big segments.

    store.py     SimpleVectorStore: add, delete, query (exact, or approximate when measured
                 good enough), persist into an index folder, load
    rows.py      MatrixRows: saved segments plus rows added since, one matrix to read
    persist.py   the on-disk form: a header, segments, a deletion bitmap
    save.py      what a save links and what it writes (only the batch)
    segments.py  which segments are kept, linked forward or merged (size-tiered)
    merge.py     a merge of segments, written outside the writer lock
    ann.py       the approximate (IVF) index of a big segment, built by whoever writes it
    ann_recall.py  that index measured on the data it indexes: nprobe raised until recall@10
                 reaches the target, else exact search with a note
"""
