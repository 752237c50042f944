"""Graphs derived from the exported model: fused by ONNX Runtime's transformer optimizer, or int8.

``export`` writes the model as torch traced it (``model.onnx``, needs torch once). This
module makes the files ``OnnxEmbedder`` runs from that one with onnxruntime alone, once per
machine, next to it in the export's cache folder:

- ``model-fused.onnx``: ``onnxruntime.transformers.optimizer`` (``model_type="bert"``) fuses
  each layer's attention into one ``Attention`` operator, the embeddings and their LayerNorm
  into ``EmbedLayerNormalization``, residual + LayerNorm into ``SkipLayerNormalization`` and
  bias + GELU into ``BiasGelu``. The same arithmetic (cosine with the exported graph > 0.9999),
  so its vectors keep the model's name; a session opens it without optimising it again;
- ``model-fused-int8.onnx``: that graph with int8 weights (``quantize_dynamic``, one scale per
  output channel) for every matrix product but each
  feed-forward's second one (``quantize_fused``).

Each file has a sidecar ``<file>.json`` naming the recipe's version, the onnxruntime version,
the source file's size and mtime, and the file's own size and CRC-32. A file whose sidecar is
missing, stale (another recipe, onnxruntime or source) or does not match its bytes (a damaged
or half-copied file) is built again. Builds take turns on the export's lock file and write to a
temporary file renamed into place (the sidecar last), so two processes never see half a file.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import zlib
from pathlib import Path
from typing import Callable

from ...errors import EmbeddingError
from .export import locked

log = logging.getLogger(__name__)

DERIVED_VERSION = 2  # bump when a recipe below changes, so old files are rebuilt
FUSED_FILE = "model-fused.onnx"
FUSED_INT8_FILE = "model-fused-int8.onnx"
INT8_OPERATORS = ("MatMul", "Attention")
_CRC_CHUNK = 1 << 22


def ensure_derived(exported: Path, file_name: str, *, model_config: dict) -> Path:
    """The path of derived graph ``file_name`` beside ``exported``, built first if needed."""
    target = exported.parent / file_name
    source = exported if file_name == FUSED_FILE else exported.parent / FUSED_FILE
    if is_current(target, source):
        return target
    if source != exported:  # before taking the lock: the source's build takes it too
        ensure_derived(exported, FUSED_FILE, model_config=model_config)
    build = _BUILDERS[file_name]
    with locked(exported.parent.parent / f"{exported.parent.name}.lock"):
        if not is_current(target, source):  # another process may have built it while we waited
            _build_atomically(target, source, lambda out: build(source, out, model_config))
    return target


def is_current(target: Path, source: Path) -> bool:
    """Whether ``target`` exists, was made by this recipe from ``source`` as it is, and is whole."""
    try:
        recorded = json.loads(sidecar(target).read_text(encoding="utf-8"))
        if recorded.get("made_from") != _stamp(source):
            return False
        return recorded.get("bytes") == target.stat().st_size and recorded.get("crc32") == crc32(
            target)
    except (OSError, ValueError, AttributeError):
        return False


def sidecar(target: Path) -> Path:
    """The JSON file recording how ``target`` was made and its checksum."""
    return target.with_name(target.name + ".json")


def crc32(path: Path) -> int:
    """The CRC-32 of a file's bytes (~0.1 s for 90 MB)."""
    value = 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CRC_CHUNK):
            value = zlib.crc32(chunk, value)
    return value


def _stamp(source: Path) -> dict:
    import onnxruntime

    stat = source.stat()
    return {"recipe": DERIVED_VERSION, "onnxruntime": onnxruntime.__version__,
            "source": source.name, "source_bytes": stat.st_size,
            "source_mtime_ns": stat.st_mtime_ns}


def _build_atomically(target: Path, source: Path, build: Callable[[Path], None]) -> None:
    """Build into a temporary file beside ``target``, then rename it and its sidecar in."""
    _remove_dead_builds(target)
    handle, name = tempfile.mkstemp(prefix=f".{target.name}-{os.getpid()}-", suffix=".onnx",
                                    dir=target.parent)
    os.close(handle)
    staging = Path(name)
    try:
        log.warning("building %s from the exported model (once per machine)", target)
        build(staging)
        record = {"made_from": _stamp(source), "bytes": staging.stat().st_size,
                  "crc32": crc32(staging)}
        staging_json = staging.with_suffix(".json")
        staging_json.write_text(json.dumps(record, indent=1), encoding="utf-8")
        os.replace(staging, target)
        os.replace(staging_json, sidecar(target))
    except EmbeddingError:
        raise
    except Exception as exc:  # the optimizer and quantizer raise many kinds of errors
        raise EmbeddingError(
            f"could not build {target.name} from {source.name}: {exc}. Delete its folder "
            f"{target.parent} and it is exported again on next use"
        ) from exc
    finally:
        staging.unlink(missing_ok=True)
        staging.with_suffix(".json").unlink(missing_ok=True)


def _remove_dead_builds(target: Path) -> None:
    """Remove temporary files that builders killed mid-build left (named after their pid)."""
    for stray in target.parent.glob(f".{target.name}-*"):
        pid = stray.name[len(target.name) + 2 :].split("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            stray.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists, but not ours to signal
        return True
    return True


def fuse(source: Path, target: Path, model_config: dict) -> None:
    """The transformer optimizer's fused graph of a BERT-shaped model (``OnnxEmbedder`` asks
    only for those)."""
    from onnxruntime.transformers import optimizer

    model = optimizer.optimize_model(
        str(source), model_type="bert", num_heads=int(model_config["num_attention_heads"]),
        hidden_size=int(model_config["hidden_size"]), opt_level=0, use_gpu=False)
    model.save_model_to_file(str(target))


def quantize_fused(source: Path, target: Path, model_config: dict) -> None:
    """Int8 weights for the fused graph's ``INT8_OPERATORS``, one scale per output channel.

    Each layer's second feed-forward product stays float32: its input (after GELU) has the
    widest range in the model, and quantising it too cost 0.012 of dense nDCG@10 on the
    retrieval benchmark against 0.0003 without it (``docs/embedder.md``).

    ``reduce_range``: 7-bit weights. On a CPU without VNNI (AVX2 only, as the AMD EPYC machines
    here) onnxruntime's u8 x s8 products saturate with full-range weights: agreement with the
    float32 graph fell to 0.988 (mean 0.994) and the corpus answers changed (Irene Adler became
    "Mr. Sherlock Holmes"); with 7 bits they match the VNNI machines' again (tests pass on both).
    """
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    graph = onnx.load(str(source), load_external_data=False).graph
    kept = [node.name for node in graph.node if _feed_forward_output(node.name)]
    quantize_dynamic(str(source), str(target), weight_type=QuantType.QInt8, per_channel=True,
                     reduce_range=True, op_types_to_quantize=list(INT8_OPERATORS),
                     nodes_to_exclude=kept,
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})


def _feed_forward_output(node_name: str) -> bool:
    """Whether a node is a layer's second feed-forward product (``layer.N/output/dense``)."""
    return node_name.endswith("/output/dense/MatMul") and "/attention/" not in node_name


_BUILDERS = {FUSED_FILE: fuse, FUSED_INT8_FILE: quantize_fused}
