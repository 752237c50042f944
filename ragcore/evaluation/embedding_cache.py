"""An embedder that remembers: each text is embedded once per evaluation.

The answer metrics embed the same texts again and again: a question for every setup, its
expected answer for every setup, the retrieved passages' sentences for every mode that answers
from them, and the same answer when two modes give it. Measured on 5 questions x 4 modes x 2
retrievers with the packaged model, embedding was 19 s of the metrics' 20 s. ``CachedEmbedder``
wraps the index's embedder for one evaluation (``default_evaluators`` does it) and embeds only
the texts it has not seen; the vectors are the wrapped embedder's own.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Sequence

import numpy as np

MAX_TEXTS = 20_000  # about 30 MB of 384-dimension vectors; the oldest are forgotten first


class CachedEmbedder:
    """``embed_batch`` of ``embedder``, each distinct text embedded once (thread-safe)."""

    def __init__(self, embedder: Any, *, max_texts: int = MAX_TEXTS) -> None:
        self.embedder = embedder
        self.max_texts = max_texts
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        # model_name, dim, loaded ... are the wrapped embedder's
        return getattr(self.embedder, name)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            fresh = np.asarray(self.embedder.embed_batch(missing), dtype=np.float32)
            with self._lock:
                self._vectors.update(zip(missing, fresh))
                while len(self._vectors) > self.max_texts:
                    self._vectors.popitem(last=False)
        with self._lock:
            known = [self._vectors.get(t) for t in texts]
        if any(v is None for v in known):  # forgotten meanwhile (a tiny cache): embed again
            return np.asarray(self.embedder.embed_batch(texts), dtype=np.float32)
        return np.stack(known) if known else np.asarray(self.embedder.embed_batch([]))
