"""An embedder slowed to a set speed, to test time estimates (and the app with ``RAGCORE_EMBEDDER
=fake`` and ``RAGCORE_FAKE_EMBED_SECONDS``) against a job whose true duration is known."""

from __future__ import annotations

import time
from typing import Any, Sequence

import numpy as np


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
