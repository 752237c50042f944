"""The packaged model on ONNX Runtime: the same weights as ``sentence_transformers``, faster.

``export`` turns the model folder into an ONNX graph once, and ``derived`` makes the
graphs this module runs from it: fused by onnxruntime's transformer optimizer (float32) and the
fused graph with int8 weights. They run with onnxruntime and the model's own ``tokenizer.json``
through ``tokenizers``, so a process whose export exists never imports torch. The pipeline is
sentence-transformers' own: truncate to the model's window, mean-pool the token vectors over the
real tokens, L2-normalise. Texts are sorted by their token count and run in batches of similar
lengths (little padding), on every core the process may use; int8 runs them one by one (no
padding at all; see ``__init__``). ``fused=False`` runs the graph as torch exported it (for
comparison, and for models that are not BERT-shaped, which are never fused).

Vectors carry the embedder's identity in ``model_name``: float32 gives the sentence-transformers
vectors (cosine > 0.9999 with torch's, measured in ``benchmarks/embedding/embedders.py``), so it
shares their name and reads indexes built with torch; int8 vectors differ a little (cosine ~0.997), so
their name says so (``-onnx-int8``) and an index records which one it holds.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ...errors import ConfigError, EmbeddingError
from ..base import normalize
from .derived import FUSED_FILE, FUSED_INT8_FILE, ensure_derived
from .export import INPUTS, ensure_exported, onnx_cache_root
from ..sentence_transformers import model_display_name, packaged_model_path, read_max_seq_length

log = logging.getLogger(__name__)

INT8_SUFFIX = "-onnx-int8"
# Texts per run. ONNX Runtime keeps the largest run's working memory (attention is batch x 12
# heads x 256^2 floats per layer): measured on 256-token chunks, 32 adds 405 MB to the process,
# 16 adds 215 MB and 8 adds 92 MB, while CPU time per chunk is the same at 16 as at 32 (8 costs
# ~8% more). 16 keeps a 200 MB ingest within its memory target at no cost in speed.
FLOAT32_BATCH = 16


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class OnnxEmbedder:
    """Embeds texts with an ONNX export of a sentence-transformers model; normalized float32."""

    def __init__(
        self,
        *,
        model_path: str | Path | None = None,
        quantized: bool = False,
        fused: bool = True,
        batch_size: int | None = None,
        threads: int | None = None,
        cache_dir: str | Path | None = None,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ConfigError(f"batch_size ({batch_size}) must be at least 1, or None")
        if threads is not None and threads < 1:
            raise ConfigError(f"threads ({threads}) must be at least 1, or None for every core")
        self.model_path = Path(model_path) if model_path is not None else packaged_model_path()
        if not (self.model_path / "tokenizer.json").is_file():
            raise ConfigError(
                f"{self.model_path} holds no tokenizer.json: pass the folder of a "
                "sentence-transformers model with a fast tokenizer"
            )
        self.quantized = quantized
        config = _model_config(self.model_path)
        # the transformer optimizer knows BERT's graph; other models run as exported
        self.fused = fused and config.get("model_type") == "bert"
        self._config = config
        # int8 quantises activations with one scale per batch, so a text's vector would depend
        # on its batch-mates (cosine ~0.99 apart): it runs texts one by one (no padding either)
        self.batch_size = batch_size or (1 if quantized else FLOAT32_BATCH)
        self.threads = threads or usable_cores()
        self.cache_dir = Path(cache_dir) if cache_dir is not None else onnx_cache_root()
        base_name = model_display_name(self.model_path)
        self.model_name = base_name + INT8_SUFFIX if quantized else base_name
        self._base_name = base_name
        self.max_input_tokens: int | None = read_max_seq_length(self.model_path)
        self.dim = _hidden_size(self.model_path, config)
        self._runtime: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OnnxEmbedder(model_name={self.model_name!r}, threads={self.threads})"

    @property
    def loaded(self) -> bool:
        """Whether the ONNX session is open yet."""
        return self._runtime is not None

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of ``texts``, run shortest first in batches of similar token counts."""
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        session, tokenizer = self._load()
        encodings = tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        pooled = np.empty((len(texts), self.dim), dtype=np.float32)
        for start in range(0, len(order), self.batch_size):
            rows = order[start : start + self.batch_size]
            feed = _padded([encodings[i].ids for i in rows])
            try:
                pooled[rows] = session.run(None, feed)[0]
            except Exception as exc:  # onnxruntime raises its own untyped errors
                raise EmbeddingError(
                    f"{self.model_name} (ONNX) failed to embed {len(rows)} texts: {exc}"
                ) from exc
        return normalize(pooled)

    def _load(self) -> tuple[Any, Any]:
        if self._runtime is None:
            with self._lock:
                if self._runtime is None:
                    self._runtime = (self._open_session(), self._open_tokenizer())
        return self._runtime

    def _open_session(self) -> Any:
        import onnxruntime

        path = ensure_exported(self.model_path, self._base_name,
                               quantized=self.quantized and not self.fused,
                               cache_root=self.cache_dir)
        if self.fused:
            path = ensure_derived(path, FUSED_INT8_FILE if self.quantized else FUSED_FILE,
                                  model_config=self._config)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: its optimiser's notes are not ours
        # idle threads sleep instead of spinning: on a busy 2-core machine spinning took 45% of
        # int8's CPU time (one text per run: many short waits), float32's about the same
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        log.info("loading the ONNX embedding model %s (%d threads)", path, self.threads)
        try:
            return onnxruntime.InferenceSession(
                str(path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # a damaged cache file: say where it is and how to redo it
            raise EmbeddingError(
                f"could not open the exported model {path}: {exc}. Delete its folder "
                f"{path.parent} and it is exported again on next use"
            ) from exc

    def _open_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(self.model_path / "tokenizer.json"))
        tokenizer.no_padding()  # padding is per batch, to the batch's longest text
        if self.max_input_tokens:
            tokenizer.enable_truncation(max_length=self.max_input_tokens)
        return tokenizer


def _padded(token_ids: list[list[int]]) -> dict[str, np.ndarray]:
    """The model's inputs for one batch, padded with zeros to its longest text."""
    width = max(len(ids) for ids in token_ids)
    ids = np.zeros((len(token_ids), width), dtype=np.int64)
    mask = np.zeros_like(ids)
    for row, values in enumerate(token_ids):
        ids[row, : len(values)] = values
        mask[row, : len(values)] = 1
    return dict(zip(INPUTS, (ids, mask, np.zeros_like(ids))))


def _model_config(model_path: Path) -> dict:
    try:
        config = json.loads((model_path / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"cannot read {model_path / 'config.json'} ({exc}): pass the folder of a complete "
            "transformers model"
        ) from exc
    return config if isinstance(config, dict) else {}


def _hidden_size(model_path: Path, config: dict) -> int:
    try:
        return int(config["hidden_size"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"{model_path / 'config.json'} does not give the model's hidden_size ({exc}): "
            "pass the folder of a complete transformers model"
        ) from exc
