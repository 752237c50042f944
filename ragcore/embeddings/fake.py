"""A deterministic embedder for fast tests: hashed bag of words, no model, no network.

Texts that share words get similar vectors, so retrieval tests behave sensibly.
"""

from __future__ import annotations

import hashlib
import re
from typing import Sequence

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
