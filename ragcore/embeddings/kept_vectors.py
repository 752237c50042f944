"""Vectors of passage sentences kept across questions: what a process has embedded once, it does
not embed again.

The packaged reader's sentence selection (``retrieval.optimizer``) and the answer check
(``grounding.verdict``) embed the sentences of every passage a question retrieves: 105-147
sentences a question on the State of the Union index, 0.5 s of an idle machine's answer and 1.7 s
of a busy one's (the ``wait`` benchmark). Questions in one session retrieve the same passages
again: over that index's 11 questions, 847 of 1,355 sentences had been embedded for an earlier
one. ``KeptVectors`` keeps the last ``MAX_KEPT`` texts' vectors per model, least recently used
out first, shared by the threads of the app's sessions.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Sequence

import numpy as np

MAX_KEPT = 20_000  # texts' vectors kept per process (384 floats each: about 30 MB)


class KeptVectors:
    """The vectors of texts embedded before, by model name and text."""

    def __init__(self, max_kept: int = MAX_KEPT) -> None:
        self.max_kept = max_kept
        self._vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        """Forget every kept vector (a test that counts embedder calls starts from none)."""
        with self._lock:
            self._vectors.clear()

    def embed_batch(self, model: str, texts: Sequence[str],
                    embed: Callable[[Sequence[str]], Any]) -> np.ndarray:
        """The vectors of ``texts``, each embedded by ``embed`` (one batch of the ones not kept)
        only if no earlier call embedded it with ``model``."""
        with self._lock:
            found = {t: self._vectors.get((model, t)) for t in dict.fromkeys(texts)}
            for text, vector in found.items():
                if vector is not None:
                    self._vectors.move_to_end((model, text))
        missing = [t for t, v in found.items() if v is None]
        if missing:
            fresh = np.asarray(embed(missing), dtype=np.float32)
            with self._lock:
                for text, vector in zip(missing, fresh):
                    found[text] = vector
                    self._vectors[(model, text)] = vector
                while len(self._vectors) > self.max_kept:
                    self._vectors.popitem(last=False)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        return np.stack([found[t] for t in texts])


KEPT = KeptVectors()  # the process's: every engine's sentence selection and check share it
