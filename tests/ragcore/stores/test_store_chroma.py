"""ChromaVectorStore against the store contract: an embedded Chroma database in a folder, and a
Chroma server (``chroma run``) started on a free loopback port by ``engines.chroma_server``."""

from __future__ import annotations

import itertools

import pytest

from ragcore.testing.vector_store import VectorStoreContract

pytest.importorskip("chromadb", reason="the Chroma store needs chromadb: pip install '.[chroma]'")

from ragcore.stores.chroma import ChromaVectorStore  # noqa: E402

_names = itertools.count()


class TestEmbeddedChroma(VectorStoreContract):
    def make_store(self, metric, tmp_path):
        return ChromaVectorStore(path=tmp_path / "chroma", collection="contract", metric=metric)


class TestChromaServer(VectorStoreContract):
    @pytest.fixture(autouse=True)
    def _server(self, chroma_server):
        self.url = chroma_server

    def make_store(self, metric, tmp_path):
        return ChromaVectorStore(url=self.url, collection=f"contract{next(_names)}", metric=metric)
