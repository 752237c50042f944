"""SentenceTransformerEmbedder: lazy, once-per-process loading; real embeddings (slow tests)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import ragcore.embeddings
from ragcore.embeddings import SentenceTransformerEmbedder, default_embedder
from ragcore.embeddings import sentence_transformers as st_module
from ragcore.errors import ConfigError, EmbeddingError


def test_importing_embeddings_loads_no_heavy_module():
    code = (
        "import sys, ragcore.embeddings as e; e.default_embedder(); e.SentenceTransformerEmbedder;"
        "print([m for m in ('torch', 'sentence_transformers', 'transformers', 'httpx')"
        " if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_window_and_name_are_known_without_loading_the_model():
    embedder = SentenceTransformerEmbedder()
    assert embedder.model_name == "all-MiniLM-L6-v2"
    assert embedder.max_input_tokens == 256
    assert not embedder.loaded


def test_default_embedder_is_shared():
    assert default_embedder() is default_embedder()
    assert ragcore.embeddings.default_embedder is default_embedder


def test_public_names():
    for name in ragcore.embeddings.__all__:
        assert getattr(ragcore.embeddings, name) is not None
    with pytest.raises(AttributeError):
        ragcore.embeddings.NoSuchEmbedder  # noqa: B018


@pytest.mark.parametrize(
    "options, message",
    [
        ({"batch_size": 0}, "batch_size"),
        ({"device": ""}, "device"),
        ({"model_path": "/nope"}, "folder"),
    ],
)
def test_bad_options_say_what_to_do(options, message):
    with pytest.raises(ConfigError, match=message):
        SentenceTransformerEmbedder(**options)


def test_missing_package_gives_an_install_hint(monkeypatch):
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    embedder = SentenceTransformerEmbedder()
    with pytest.raises(EmbeddingError, match="pip install sentence-transformers"):
        embedder.embed_batch(["hello"])


@pytest.mark.slow
def test_a_folder_without_a_model_is_an_embedding_error(tmp_path):
    embedder = SentenceTransformerEmbedder(model_path=tmp_path)
    assert embedder.model_name == tmp_path.name and embedder.max_input_tokens is None
    with pytest.raises(EmbeddingError, match="could not load the embedding model"):
        embedder.embed_batch(["hello"])


class _FakeModel:
    def get_sentence_embedding_dimension(self) -> int:
        return 3

    def encode(self, texts, **options):
        assert options["normalize_embeddings"] and options["convert_to_numpy"]
        return np.ones((len(texts), 3), dtype=np.float64) / np.sqrt(3)


def test_concurrent_first_calls_load_the_model_once(monkeypatch):
    loads = []

    def slow_load(path, device):
        loads.append(path)
        time.sleep(0.05)
        return _FakeModel()

    monkeypatch.setattr(st_module, "_load_model", slow_load)
    embedder = SentenceTransformerEmbedder()
    results = []
    threads = [
        threading.Thread(target=lambda: results.append(embedder.embed_batch(["a", "b"])))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(loads) == 1 and len(results) == 8
    assert all(r.dtype == np.float32 and r.shape == (2, 3) for r in results)
    assert embedder.embed_batch([]).shape == (0, 3)


@pytest.mark.slow
def test_real_model_embeds_normalized_float32(real_embedder):
    vectors = real_embedder.embed_batch(["The cat sat on the mat.", "A feline rested on the rug."])
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_real_model_puts_similar_texts_close(real_embedder):
    a, b, c = real_embedder.embed_batch(
        [
            "How do I reset my password?",
            "Steps to recover a forgotten login password",
            "The central bank raised interest rates.",
        ]
    )
    assert float(a @ b) > float(a @ c) + 0.3


@pytest.mark.slow
def test_batching_does_not_change_vectors(real_embedder):
    texts = [f"sentence number {i} about topic {i % 7}" * (1 + i % 5) for i in range(70)]
    whole = real_embedder.embed_batch(texts)
    one_by_one = np.stack([real_embedder.embed_batch([t])[0] for t in texts[:5]])
    assert np.allclose(whole[:5], one_by_one, atol=1e-5)
