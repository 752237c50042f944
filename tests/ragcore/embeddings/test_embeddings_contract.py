"""The embedder contract (ragcore.testing.embedder) run against every embedder ragcore ships."""

from __future__ import annotations

import pytest
from support.loopback import LoopbackServer, loopback  # noqa: F401 (fixture)

from ragcore.embeddings import OllamaEmbedder, OpenAIEmbedder, default_embedder
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.testing.embedder import EmbedderContract


class TestFakeEmbedder(EmbedderContract):
    def make_embedder(self):
        return FakeEmbedder()


class ServerContract(EmbedderContract):
    """The loopback server's vectors are derived from each text, unnormalized."""

    @pytest.fixture(autouse=True)
    def _server(self, loopback: LoopbackServer) -> None:
        self.server = loopback


class TestOllamaEmbedder(ServerContract):
    def make_embedder(self):
        return OllamaEmbedder(model="nomic-embed-text", base_url=self.server.ollama_url,
                              batch_size=2, retry_backoff=0.0)


class TestOpenAIEmbedder(ServerContract):
    def make_embedder(self):
        return OpenAIEmbedder(model="text-embedding-3-small", base_url=self.server.openai_url,
                              batch_size=2, retry_backoff=0.0)


@pytest.mark.slow
class TestPackagedEmbedder(EmbedderContract):
    def make_embedder(self):
        return default_embedder()
