"""The packaged all-MiniLM-L6-v2 and its variants: which one a process uses, shared per process.

The same weights run three ways, told apart by the name an index records (``model_name``):

- ``all-MiniLM-L6-v2``: float32, on ONNX Runtime when it is installed (``onnx``), else on
  torch (``sentence_transformers``). Both give the same vectors (cosine > 0.9999), so they
  share the name and either reads an index built with the other. The default: ONNX runs it
  1.4x faster per CPU-second than torch, and a fresh process has its first query vector in
  ~1 s instead of ~10 s (no torch import);
- ``all-MiniLM-L6-v2-onnx-int8``: ONNX Runtime with int8 weights, another 1.9x faster, but not
  the default: on the retrieval benchmark its dense nDCG@10 is 0.008 below float32's (hybrid:
  0.001), over the 0.005 it may lose (``python -m benchmarks --only embedders``). Chosen by
  building an index with ``OnnxEmbedder(quantized=True)``; such an index records it.

``default_embedder(built_with)`` gives the variant an index was built with, so an int8 index
keeps getting int8 query vectors. Without onnxruntime every variant falls back to torch float32,
with a warning; an int8 index then refuses it with an error naming both models.
"""

from __future__ import annotations

import importlib.util
import logging
import threading

from .base import Embedder

log = logging.getLogger(__name__)

FLOAT32_NAME = "all-MiniLM-L6-v2"
INT8_NAME = "all-MiniLM-L6-v2-onnx-int8"
DEFAULT_NAME = FLOAT32_NAME  # the fastest variant that keeps retrieval quality
VARIANTS = (INT8_NAME, FLOAT32_NAME)

_shared: dict[str, Embedder] = {}
_lock = threading.Lock()


def onnxruntime_available() -> bool:
    """Whether onnxruntime and tokenizers can be imported (checked without importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("onnxruntime", "tokenizers"))


def default_embedder(built_with: str | None = None) -> Embedder:
    """The shared packaged embedder for an index built with ``built_with`` (None: a new one).

    A name that is no packaged variant gives the default too; the index's own check then
    refuses it with an error naming both models.
    """
    name = built_with if built_with in VARIANTS else DEFAULT_NAME
    if name not in _shared:
        with _lock:
            if name not in _shared:
                _shared[name] = packaged_variant(name)
    return _shared[name]


def packaged_variant(name: str) -> Embedder:
    """A new embedder for variant ``name`` of the packaged model (nothing loads until used)."""
    if name not in VARIANTS:
        raise ValueError(f"{name!r} is no variant of the packaged model: use one of {VARIANTS}")
    if onnxruntime_available():
        from .onnx import OnnxEmbedder

        return OnnxEmbedder(quantized=name == INT8_NAME)
    from .sentence_transformers import SentenceTransformerEmbedder

    log.warning(
        "onnxruntime is not installed, so the packaged model runs on torch (slower, float32 "
        "vectors named %r): `pip install onnxruntime` for the faster default", FLOAT32_NAME,
    )
    return SentenceTransformerEmbedder()


def same_model_variant(embedder: Embedder, built_with: str | None) -> Embedder:
    """``embedder``, or the packaged variant ``built_with`` names when ``embedder`` is another.

    The workspace asks for "the packaged model" by setting; an index built with its other
    variant keeps getting that variant's vectors this way.
    """
    name = embedder.model_name
    if built_with in VARIANTS and name in VARIANTS and name != built_with:
        return default_embedder(built_with)
    return embedder
