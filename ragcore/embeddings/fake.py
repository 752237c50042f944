"""Deterministic embedders for fast tests: hashed bag of words, no model, no network.

Texts that share words get similar vectors, so retrieval tests behave sensibly.
``ThrottledEmbedder`` slows any embedder to a set speed, to test time estimates (and the app
with ``RAGCORE_EMBEDDER=fake`` and ``RAGCORE_FAKE_EMBED_SECONDS``) against a job whose true
duration is known.
"""

from __future__ import annotations

import hashlib
import re
import time
from typing import Any, Sequence

import numpy as np

from .base import normalize

_WORD = re.compile(r"\w+")


class FakeEmbedder:
    """Hashes each lower-cased word into one of ``dim`` buckets; vectors are normalized."""

    def __init__(self, *, dim: int = 64, model_name: str = "fake-embedder") -> None:
        if dim < 1:
            raise ValueError(f"dim ({dim}) must be at least 1")
        self.dim = dim
        self.model_name = model_name
        self.max_input_tokens: int | None = None
        self.calls = 0

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in _WORD.findall(text.lower()):
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                out[row, int.from_bytes(digest, "little") % self.dim] += 1.0
        return normalize(out)


class ThrottledEmbedder:
    """``inner``'s vectors, after sleeping ``seconds_per_text`` for each text of a batch."""

    def __init__(self, inner: Any, *, seconds_per_text: float) -> None:
        if seconds_per_text < 0:
            raise ValueError(f"seconds_per_text ({seconds_per_text}) must be 0 or more")
        self.inner = inner
        self.seconds_per_text = seconds_per_text
        # Another name than the inner model's: its measured rate is its own.
        self.model_name = f"{inner.model_name} at {seconds_per_text * 1000:g} ms per text"
        self.max_input_tokens = getattr(inner, "max_input_tokens", None)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        time.sleep(self.seconds_per_text * len(texts))
        return self.inner.embed_batch(texts)
