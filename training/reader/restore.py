"""The shipped reader's int8 file read back into a checkpoint to train from.

    python -m training.reader.restore --out .cache/reader4

Stages 1-4 of the recipe (``README.md``) take about two hours and fifteen minutes on two cores;
their last checkpoint is not kept in the repository, the int8 file they made is
(``ragcore/reading/weights/reader-int8.onnx``). Each of its int8 matrices is dequantised
(``(q - zero point) * scale``, per output channel, as onnxruntime's ``quantize_dynamic`` wrote
it) and put back under the module that ``torch.onnx.export`` named its node after; the biases
and layer norms were kept in float32 under their own names. The word-piece table is the
packaged model's (frozen in every stage, so the same numbers without the int8 rounding). What
the file loses is its rounding: the restored model's logit is the file's within
``check_restored``'s tolerance on the pairs it reads, and a span reader trained from it
(``span.py``, stage 7) starts where one trained from stage 4 itself would, up to that rounding.
"""

from __future__ import annotations

import argparse
import logging
import re
from pathlib import Path

import numpy as np

from ragcore.embeddings.sentence_transformers import packaged_model_path
from ragcore.reading.model import MAX_TOKENS, MODEL_FILE, WEIGHTS_DIR

from .train import save_checkpoint

log = logging.getLogger("training.reader.restore")

# "/bert/encoder/layer.0/attention/self/query/MatMul_quant" -> "bert.encoder.layer.0.attention.
# self.query"
_MATMUL_NODE = re.compile(r"^/(?P<module>.+)/MatMul_quant$")
_EMBEDDINGS = ("bert.embeddings.token_type_embeddings", "bert.embeddings.position_embeddings")
_TRANSPOSED = ("bert.pooler.dense", "classifier")  # exported as "<module>.weight_Transposed"


def weights(path: Path) -> dict[str, np.ndarray]:
    """The int8 file's weights in float32 under the names of the PyTorch modules they came
    from (the word-piece table excepted: see the module's text)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    tables = {i.name: numpy_helper.to_array(i) for i in graph.initializer}

    def dequantised(name: str) -> np.ndarray:
        q = tables[f"{name}_quantized"].astype(np.float32)
        zero = tables[f"{name}_zero_point"].astype(np.float32)
        return (q - zero) * tables[f"{name}_scale"]  # per output channel: the last axis

    out = {n: a for n, a in tables.items() if not n.endswith(("_quantized", "_scale",
                                                              "_zero_point"))}
    for node in graph.node:
        found = _MATMUL_NODE.match(node.name) if node.op_type == "MatMulInteger" else None
        if found:
            module = found["module"].replace("/", ".")
            out[f"{module}.weight"] = dequantised(node.input[1].removesuffix("_quantized")).T
    for module in _TRANSPOSED:
        out[f"{module}.weight"] = dequantised(f"{module}.weight_Transposed").T
    for module in _EMBEDDINGS:
        out[f"{module}.weight"] = dequantised(f"{module}.weight")
    return {n: a for n, a in out.items() if not n.startswith("onnx::")}


def restore(out: Path, source: Path = WEIGHTS_DIR / MODEL_FILE) -> Path:
    """A sequence-classification checkpoint in ``out`` holding ``source``'s weights."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    base = str(packaged_model_path())
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=1)
    state = model.state_dict()
    restored = weights(source)
    unknown = sorted(set(restored) - set(state))
    if unknown:
        raise ValueError(f"{source} holds weights no module of the model has: {unknown[:5]}")
    left = sorted(n for n in state if n not in restored and "word_embeddings" not in n
                  and not n.endswith("position_ids"))
    if left:
        raise ValueError(f"{source} lacks weights the model needs: {left[:5]}")
    for name, array in restored.items():
        if tuple(state[name].shape) != array.shape:
            raise ValueError(f"{name}: {array.shape} in {source}, {tuple(state[name].shape)} in "
                             "the model")
        state[name] = torch.tensor(array)
    model.load_state_dict(state)
    save_checkpoint(model, AutoTokenizer.from_pretrained(base), out, 0)
    log.info("restored %d weights of %s into %s", len(restored), source, out)
    return out


def check_restored(checkpoint: Path, pairs: list[tuple[str, str]],
                   source: Path = WEIGHTS_DIR / MODEL_FILE) -> float:
    """The largest difference between the restored model's logit and the file's over
    ``pairs`` (question, text)."""
    import onnxruntime
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    model = AutoModelForSequenceClassification.from_pretrained(str(checkpoint)).eval()
    tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
    session = onnxruntime.InferenceSession(str(source), providers=["CPUExecutionProvider"])
    worst = 0.0
    for question, text in pairs:
        encoded = tokenizer(question, text, truncation="only_second", max_length=MAX_TOKENS,
                            return_tensors="np")
        feed = {k: encoded[k].astype(np.int64) for k in ("input_ids", "attention_mask",
                                                          "token_type_ids")}
        shipped = float(session.run(None, feed)[0].reshape(-1)[0])
        with torch.no_grad():
            mine = float(model(**{k: torch.from_numpy(v) for k, v in feed.items()}).logits[0, 0])
        worst = max(worst, abs(mine - shipped))
    return worst


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(".cache/reader4"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    restore(args.out)
    pairs = [("How long is the grace period of a Chubby client by default?",
              "The client waits a further interval called the grace period, 45s by default."),
             ("Who wrote the paper?", "The sky is blue over the harbour in summer.")]
    log.info("largest logit difference from the file: %.3f", check_restored(args.out, pairs))


if __name__ == "__main__":
    main()
