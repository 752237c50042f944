"""Export a sentence-transformers model folder to ONNX once, and cache it in the user's cache.

``OnnxEmbedder`` (``embedder``) runs what this module writes. The export needs torch and
transformers, so it runs once per model and machine, on first use: the transformer and its mean
pooling become one graph (``input_ids``, ``attention_mask``, ``token_type_ids`` in, one pooled
vector per text out; the L2 normalisation stays in numpy), and ``quantize_dynamic`` writes a
copy with int8 weights beside it. After that a process needs only onnxruntime and tokenizers.

The cache is ``$RAGCORE_ONNX_CACHE``, else ``$XDG_CACHE_HOME/ragcore/onnx``, else
``~/.cache/ragcore/onnx``; never the model's own (package) folder. Each model gets a folder
named after it and a digest of its files and of ``EXPORT_VERSION``, so a changed model or
exporter writes a new one. Two processes exporting at once take turns on a lock file, and each
export is written to a temporary folder and renamed into place, so a reader never sees half a
model and a crash leaves only a stray temporary folder.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from ...errors import EmbeddingError

try:
    import fcntl
except ImportError:  # Windows: the atomic rename alone keeps the cache whole
    fcntl = None  # type: ignore[assignment]

log = logging.getLogger(__name__)

EXPORT_VERSION = 2  # bump when the exported graph changes, so old caches are not reused
FP32_FILE = "model.onnx"
INT8_FILE = "model-int8.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPSET = 17
CACHE_ENV = "RAGCORE_ONNX_CACHE"
_MODEL_FILES = ("config.json", "tokenizer.json", "model.safetensors", "pytorch_model.bin")


def onnx_cache_root() -> Path:
    """Where exported models live: $RAGCORE_ONNX_CACHE, else the XDG user cache."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "ragcore" / "onnx"


def export_folder(model_path: Path, name: str, cache_root: Path) -> Path:
    """The cache folder of ``model_path``'s export (whether it exists yet or not)."""
    digest = hashlib.sha256(f"export {EXPORT_VERSION} opset {OPSET}".encode())
    for file_name in _MODEL_FILES:
        path = model_path / file_name
        if path.is_file():  # size and mtime stand in for the weights' bytes (90 MB to hash)
            stat = path.stat()
            digest.update(f"{file_name} {stat.st_size} {stat.st_mtime_ns}".encode())
    return cache_root / f"{name}-{digest.hexdigest()[:12]}"


def ensure_exported(model_path: Path, name: str, *, quantized: bool, cache_root: Path) -> Path:
    """The path of the ONNX file (int8 when ``quantized``), exporting it first if needed."""
    folder = export_folder(model_path, name, cache_root)
    target = folder / (INT8_FILE if quantized else FP32_FILE)
    if target.is_file():
        return target
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EmbeddingError(
            f"cannot create the ONNX model cache {cache_root}: {exc}. Set ${CACHE_ENV} to a "
            "writable folder"
        ) from exc
    with locked(cache_root / f"{folder.name}.lock"):
        if not target.is_file():  # another process may have finished it while we waited
            _export_into(model_path, folder)
    return target


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created if missing) while the block runs."""
    with open(path, "a+b") as handle:
        if fcntl is not None:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _export_into(model_path: Path, folder: Path) -> None:
    """Write both files into a temporary sibling of ``folder``, then rename it into place."""
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        log.warning("exporting the embedding model %s to ONNX in %s (once per machine)",
                    model_path, folder)
        export_onnx(model_path, staging / FP32_FILE)
        quantize_int8(staging / FP32_FILE, staging / INT8_FILE)
        if folder.exists():  # an older, incomplete copy (only possible without a lock)
            shutil.rmtree(folder, ignore_errors=True)
        os.replace(staging, folder)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def export_onnx(model_path: Path, target: Path) -> None:
    """Export the transformer of ``model_path`` with mean pooling to one ONNX file."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import torch
        from transformers import AutoModel
    except ImportError as exc:
        raise EmbeddingError(
            f"exporting {model_path} to ONNX needs torch and transformers once: install them "
            "with `pip install torch==2.13.0 transformers`"
        ) from exc
    # eager attention: the fused one traces into a graph that ignores padding masks
    model = AutoModel.from_pretrained(str(model_path), attn_implementation="eager").eval()
    sample = torch.ones((2, 8), dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in INPUTS}
    with torch.no_grad():
        torch.onnx.export(
            _MeanPooled(model, torch), (sample, sample, torch.zeros_like(sample)), str(target),
            dynamo=False, input_names=list(INPUTS), output_names=["sentence_embedding"],
            dynamic_axes={**axes, "sentence_embedding": {0: "batch"}}, opset_version=OPSET,
        )


def _MeanPooled(model, torch):  # noqa: N802 (builds a torch Module class without importing torch)
    class MeanPooled(torch.nn.Module):
        """The transformer's token vectors averaged over the real (unpadded) tokens."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, input_ids, attention_mask, token_type_ids):
            tokens = self.model(input_ids=input_ids, attention_mask=attention_mask,
                                token_type_ids=token_type_ids).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
            return (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)

    return MeanPooled()


def quantize_int8(source: Path, target: Path) -> None:
    """Int8 weights for the matrix products, one scale per output channel.

    Measured on the packaged model: per-channel scales keep cosine ~0.99 with float32, one
    scale per tensor only ~0.95 (a few outlier columns take the whole range); other operators
    (embeddings lookup, attention's products of activations) stay float32.
    """
    from onnxruntime.quantization import QuantType, quantize_dynamic

    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8,
                     op_types_to_quantize=["MatMul"], per_channel=True)
