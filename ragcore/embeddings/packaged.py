"""The packaged all-MiniLM-L6-v2 and its variants: which one a process uses, shared per process.

The same weights run three ways, told apart by the name an index records (``model_name``):

- ``all-MiniLM-L6-v2-onnx-int8``: ONNX Runtime on the fused graph with int8 weights
  (``onnx.derived``: every matrix product but each feed-forward's second one), texts run one by
  one with no padding. The default for new indexes: 0.45-0.47x the CPU time of a bare torch
  encode, and on the retrieval benchmark its dense nDCG@10 is within 0.001 of torch's (hybrid within
  0.003); ``docs/embedder.md`` has the table (``python -m benchmarks --only embedders``). An
  index built with the earlier int8 recipe (every MatMul of the exported graph) reads with this
  one: their vectors agree to ~0.99;
- ``all-MiniLM-L6-v2``: float32, on ONNX Runtime's fused graph when onnxruntime is installed
  (``onnx.embedder``), else on torch (``sentence_transformers``). Both give the same vectors (cosine >
  0.9999), so they share the name and either reads an index built with the other. Indexes
  built before int8 became the default keep it; ``RAGCORE_PACKAGED_VARIANT=float32`` gives it
  to new indexes too.

``default_embedder(built_with)`` gives the variant an index was built with, so a float32 index
keeps getting float32 query vectors. Without onnxruntime every variant falls back to torch
float32, with a warning; an int8 index then refuses it with an error naming both models.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading

from ..errors import ConfigError
from .base import Embedder

log = logging.getLogger(__name__)

FLOAT32_NAME = "all-MiniLM-L6-v2"
INT8_NAME = "all-MiniLM-L6-v2-onnx-int8"
DEFAULT_NAME = INT8_NAME  # 0.45x torch's CPU time, same retrieval: docs/embedder.md
VARIANTS = (INT8_NAME, FLOAT32_NAME)
VARIANT_ENV = "RAGCORE_PACKAGED_VARIANT"  # the variant new indexes get: int8 or float32
_SHORT_NAMES = {"int8": INT8_NAME, "float32": FLOAT32_NAME}

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
    name = built_with if built_with in VARIANTS else new_index_variant()
    if name not in _shared:
        with _lock:
            if name not in _shared:
                _shared[name] = packaged_variant(name)
    return _shared[name]


def new_index_variant() -> str:
    """The variant a new index gets: ``$RAGCORE_PACKAGED_VARIANT`` (int8, float32), else the
    default."""
    chosen = os.environ.get(VARIANT_ENV, "").strip()
    if not chosen:
        return DEFAULT_NAME
    name = _SHORT_NAMES.get(chosen.lower(), chosen)
    if name not in VARIANTS:
        raise ConfigError(
            f"${VARIANT_ENV} is {chosen!r}: set it to one of {sorted(_SHORT_NAMES)} or unset it")
    return name


def packaged_variant(name: str) -> Embedder:
    """A new embedder for variant ``name`` of the packaged model (nothing loads until used)."""
    if name not in VARIANTS:
        raise ValueError(f"{name!r} is no variant of the packaged model: use one of {VARIANTS}")
    if onnxruntime_available():
        from .onnx.embedder import OnnxEmbedder

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
