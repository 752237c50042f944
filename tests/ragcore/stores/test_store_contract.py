"""The VectorStore contract (``ragcore.testing.vector_store``) run against every store we have.

``SimpleVectorStore`` is ragcore's own; ``DictVectorStore`` (tests/support/dict_store.py) is written
the way an outside package would write one, so passing here shows the suite is usable from
outside and that a store needs no edit inside ragcore to persist and load with an index.
"""

from __future__ import annotations

from support.dict_store import DictVectorStore

from ragcore.stores import SimpleVectorStore
from ragcore.testing.vector_store import VectorStoreContract


class TestSimpleVectorStore(VectorStoreContract):
    def make_store(self, metric, tmp_path):
        return SimpleVectorStore(metric=metric)


class TestDictVectorStore(VectorStoreContract):
    def make_store(self, metric, tmp_path):
        return DictVectorStore(metric=metric)
