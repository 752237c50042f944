"""The shipped reader's int8 file reads back into a checkpoint that gives the file's logits
(``training/reader/restore.py``): stage 7 (the span reader) trains from it."""

from __future__ import annotations

import pytest

from training.reader.restore import check_restored, restore, weights

from ragcore.reading.model import MODEL_FILE, WEIGHTS_DIR

PAIRS = [("How long is the grace period of a Chubby client by default?",
          "The client waits a further interval called the grace period, 45s by default."),
         ("Who wrote the paper?", "The sky is blue over the harbour in summer. | | It rained."),
         ("When was Bitcoin released?", "Bitcoin was released in 2009 by Satoshi Nakamoto.")]


def test_every_int8_matrix_goes_back_to_the_module_it_came_from():
    found = weights(WEIGHTS_DIR / MODEL_FILE)
    layers = {name.split(".")[3] for name in found if name.startswith("bert.encoder.layer.")}
    assert layers == {str(n) for n in range(6)}
    # a linear layer's matrix as torch holds it: (out, in)
    assert found["bert.encoder.layer.0.intermediate.dense.weight"].shape == (1536, 384)
    assert found["bert.encoder.layer.5.output.dense.weight"].shape == (384, 1536)
    assert found["bert.embeddings.position_embeddings.weight"].shape == (512, 384)
    assert not any(name.startswith("onnx::") for name in found)


@pytest.mark.slow
def test_the_restored_checkpoint_gives_the_files_logits(tmp_path):
    checkpoint = restore(tmp_path / "reader4")
    # the file quantises activations as it runs; the restored model reads them in float32
    assert check_restored(checkpoint, PAIRS) < 0.3
