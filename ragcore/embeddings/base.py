"""The Embedder protocol: a batch of texts in, a matrix of normalized float32 vectors out.

An embedder implements ``embed_batch``; ``embed_texts`` adds batching and progress on top, and
``embed_query`` embeds one text. ``max_input_tokens`` is the model's input window in its own
word pieces (None when unknown), used to warn when chunks would be silently truncated.
"""

from __future__ import annotations

from typing import Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import EmbeddingError
from ..types import MetadataMode, Node

# progress(done, total): called after each batch.
Progress = Callable[[int, int], None]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors."""

    model_name: str
    max_input_tokens: int | None

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalized vectors."""
        ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """L2-normalize rows as float32 (zero rows stay zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


def embed_texts(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    batch_size: int = 64,
    progress: Progress | None = None,
) -> np.ndarray:
    """Embed ``texts`` in batches, reporting progress after each batch."""
    if batch_size < 1:
        raise ValueError(f"batch_size ({batch_size}) must be at least 1")
    parts: list[np.ndarray] = []
    for start in range(0, len(texts), batch_size):
        parts.append(embedder.embed_batch(texts[start : start + batch_size]))
        if progress is not None:
            progress(min(start + batch_size, len(texts)), len(texts))
    if not parts:
        return np.zeros((0, 0), dtype=np.float32)
    return np.concatenate(parts).astype(np.float32, copy=False)


def embed_query(embedder: Embedder, text: str) -> np.ndarray:
    """One text's vector, shape (dim,)."""
    return embedder.embed_batch([text])[0]


EMBED_CHUNK = 256  # texts per embed call (one progress report each); the embedder batches inside


def embed_nodes(
    embedder: Embedder, nodes: Sequence[Node], *, progress: Progress | None = None
) -> np.ndarray:
    """Vectors of the nodes' embed-mode content, rows in the nodes' order.

    Texts go to the embedder longest first, in chunks of EMBED_CHUNK, so each batch holds texts
    of similar length (little padding) and progress is reported without per-text overhead.
    """
    texts = [n.content(MetadataMode.EMBED) for n in nodes]
    order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
    vectors = embed_texts(
        embedder, [texts[i] for i in order], batch_size=EMBED_CHUNK, progress=progress
    )
    if vectors.shape[0] != len(nodes):
        raise EmbeddingError(
            f"{embedder.model_name} returned {vectors.shape[0]} vectors for {len(nodes)} texts"
        )
    result = np.empty_like(vectors)
    result[order] = vectors
    return result
