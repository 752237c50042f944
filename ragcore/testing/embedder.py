"""EmbedderContract: the Embedder protocol as tests, for any embedder, wherever it is written.

Subclass it in your own test file and make your embedder::

    from ragcore.testing.embedder import EmbedderContract

    class TestMyEmbedder(EmbedderContract):
        def make_embedder(self):
            return MyEmbedder(model="m", base_url=self.server_url)

The suite checks what the index and the stores rely on: ``embed_batch`` gives an (n, dim)
float32 array of finite, L2-normalized rows, one per text in order; the same text gets the same
vector whatever batch it is in; an empty batch gives no rows; ``embed_query`` and
``embed_texts`` (batching with progress) agree with ``embed_batch``; ``model_name`` and
``max_input_tokens`` are sound.
"""

from __future__ import annotations

import numpy as np

from ..embeddings.base import Embedder, embed_query, embed_texts

TEXTS = [
    "Tomatoes need sun, water and patience.",
    "The policy engine grants access to each resource per session.",
    "Peppers and tomatoes grow best in a warm summer.",
]
ATOL = 1e-4  # batches of other sizes may pad differently inside a model


class EmbedderContract:
    """Subclass, implement ``make_embedder``; every ``test_*`` below then runs on it."""

    def make_embedder(self) -> Embedder:
        """Your embedder, ready to embed."""
        raise NotImplementedError("subclass EmbedderContract and build it in make_embedder()")

    def test_it_is_an_embedder(self) -> None:
        embedder = self.make_embedder()
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.model_name, str) and embedder.model_name.strip()
        window = embedder.max_input_tokens
        assert window is None or (isinstance(window, int) and window > 0)

    def test_rows_are_finite_unit_length_float32_one_per_text(self) -> None:
        vectors = self.make_embedder().embed_batch(TEXTS)
        assert isinstance(vectors, np.ndarray) and vectors.dtype == np.float32
        assert vectors.ndim == 2 and vectors.shape[0] == len(TEXTS) and vectors.shape[1] > 0
        assert np.isfinite(vectors).all()
        assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)
        assert not np.allclose(vectors[0], vectors[1], atol=ATOL)  # texts are told apart

    def test_a_text_gets_the_same_vector_in_any_batch(self) -> None:
        embedder = self.make_embedder()
        first = embedder.embed_batch(TEXTS)
        assert np.allclose(embedder.embed_batch(TEXTS), first, atol=ATOL)
        assert np.allclose(embedder.embed_batch(TEXTS[::-1]), first[::-1], atol=ATOL)
        assert np.allclose(embedder.embed_batch([TEXTS[1]])[0], first[1], atol=ATOL)

    def test_an_empty_batch_gives_no_rows(self) -> None:
        vectors = self.make_embedder().embed_batch([])
        assert isinstance(vectors, np.ndarray) and vectors.dtype == np.float32
        assert vectors.ndim == 2 and vectors.shape[0] == 0

    def test_query_and_batched_helpers_agree_with_embed_batch(self) -> None:
        embedder = self.make_embedder()
        whole = embedder.embed_batch(TEXTS)
        assert np.allclose(embed_query(embedder, TEXTS[2]), whole[2], atol=ATOL)
        progress: list[tuple[int, int]] = []
        batched = embed_texts(embedder, TEXTS, batch_size=2, progress=lambda *p: progress.append(p))
        assert np.allclose(batched, whole, atol=ATOL) and batched.dtype == np.float32
        assert progress == [(2, 3), (3, 3)]
