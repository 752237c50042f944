"""The HTTP embedders (Ollama /api/embed, OpenAI /embeddings) against the loopback server."""

from __future__ import annotations

import numpy as np
import pytest
from support.loopback import Reply, loopback, unused_url  # noqa: F401 (fixture)

from ragcore.embeddings import Embedder, OllamaEmbedder, OpenAIEmbedder, embed_query, embed_texts
from ragcore.errors import ConfigError, EmbeddingError
from ragcore.embeddings.openai import read_openai_embeddings


def ollama(server, **options) -> OllamaEmbedder:
    return OllamaEmbedder(model=options.pop("model", "nomic-embed-text"),
                          base_url=server.ollama_url, retry_backoff=0.0, **options)


def openai(server, **options) -> OpenAIEmbedder:
    return OpenAIEmbedder(model=options.pop("model", "text-embedding-3-small"),
                          base_url=server.openai_url, retry_backoff=0.0, **options)


@pytest.mark.parametrize("make", [ollama, openai])
def test_vectors_are_normalized_float32_one_per_text(loopback, make):
    embedder = make(loopback)
    assert isinstance(embedder, Embedder)
    vectors = embedder.embed_batch(["red apple", "green apple", "a car"])
    assert vectors.shape == (3, loopback.embedding_dim) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]  # same words, closer vectors
    assert embed_query(embedder, "red apple") == pytest.approx(vectors[0])


@pytest.mark.parametrize("make, path", [(ollama, "/api/embed"), (openai, "/v1/embeddings")])
def test_batches_and_request_body(loopback, make, path):
    embedder = make(loopback, batch_size=2)
    vectors = embed_texts(embedder, ["a b", "c d", "e f", "g h", "i j"], batch_size=5)
    assert vectors.shape[0] == 5
    requests = loopback.requests_to(path)
    assert [r.json["input"] for r in requests] == [["a b", "c d"], ["e f", "g h"], ["i j"]]
    assert requests[0].json["model"] == embedder.connection.model


def test_model_names_say_which_server_kind(loopback):
    assert ollama(loopback).model_name == "ollama:nomic-embed-text"
    assert openai(loopback).model_name == "openai:text-embedding-3-small"


def test_openai_vectors_are_put_back_in_input_order():
    data = {"data": [{"index": 1, "embedding": [0.0, 1.0]}, {"index": 0, "embedding": [1.0, 0.0]}]}
    assert read_openai_embeddings(data) == [[1.0, 0.0], [0.0, 1.0]]


def test_missing_ollama_model_is_an_embedding_error_that_says_pull(loopback):
    with pytest.raises(EmbeddingError, match="ollama pull mxbai-embed-large"):
        ollama(loopback, model="mxbai-embed-large").embed_batch(["x"])


def test_refused_connection_is_an_embedding_error_naming_the_url():
    url = unused_url()
    embedder = OllamaEmbedder(model="m", base_url=url, max_retries=0)
    with pytest.raises(EmbeddingError, match=url):
        embedder.embed_batch(["x"])


def test_5xx_is_retried(loopback):
    loopback.queue(Reply(status=500), Reply())
    assert openai(loopback).embed_batch(["x"]).shape == (1, loopback.embedding_dim)


def test_wrong_vector_count_or_shape_is_explained(loopback):
    loopback.queue(Reply(embeddings=[[1.0, 2.0]]))
    with pytest.raises(EmbeddingError, match="1 vector for 2 texts"):
        ollama(loopback).embed_batch(["a", "b"])
    loopback.queue(Reply(embeddings=[[1.0, 2.0], [1.0]]))
    with pytest.raises(EmbeddingError, match="embedding model"):
        openai(loopback).embed_batch(["a", "b"])


def test_empty_input_makes_no_request(loopback):
    assert ollama(loopback).embed_batch([]).shape[0] == 0
    assert loopback.requests == []


@pytest.mark.parametrize("option", [{"batch_size": 0}, {"max_input_tokens": -5}, {"model": " "}])
def test_bad_options(loopback, option):
    with pytest.raises(ConfigError):
        ollama(loopback, **option)
