"""The span reader's recipe rebuilds: a slice of its examples trains, exports to an int8 file
with its recipe and SHA-256, and the measuring runtime (``benchmarks/reader/spans.py``) opens
it, scores phrases and refuses a file that is not its recipe's."""

from __future__ import annotations

import json
import shutil

import pytest

from benchmarks.reader.spans import SpanReader
from training.reader.span import MODEL_FILE, RECIPE_FILE, main

from ragcore.embeddings.sentence_transformers import packaged_model_path
from ragcore.errors import ConfigError

QUESTION = "How long is the grace period of a Chubby client by default?"
PASSAGE = ("Chubby is a lock service. A Chubby client holds a session with the master. "
           "The client waits a further interval called the grace period, 45s by default.")


@pytest.mark.slow
def test_a_slice_trains_and_exports_a_file_the_runtime_reads(tmp_path):
    out = tmp_path / "out"
    main(["--start", str(packaged_model_path()), "--checkpoint", str(tmp_path / "checkpoint"),
          "--out", str(out), "--limit", "32"])
    recipe = json.loads((out / RECIPE_FILE).read_text())
    assert recipe["steps"] == 2 and recipe["examples"] == 32 and len(recipe["sha256"]) == 64
    assert (out / MODEL_FILE).stat().st_size < 30e6
    reader = SpanReader(folder=out)
    at = PASSAGE.index("45s")
    assert isinstance(reader.score(QUESTION, PASSAGE, at, at + 3), float)
    phrase = reader.best(QUESTION, PASSAGE)
    assert phrase is not None and 0 <= phrase.start < phrase.end <= len(PASSAGE)
    # a passage longer than the window is read around the phrase scored
    long = "Bigtable keeps its tablets in the Google File System. " * 40 + PASSAGE
    at = long.index("45s")
    assert isinstance(reader.score(QUESTION, long, at, at + 3), float)

    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copy(out / RECIPE_FILE, broken / RECIPE_FILE)
    data = bytearray((out / MODEL_FILE).read_bytes())
    data[-100] ^= 0xFF
    (broken / MODEL_FILE).write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="SHA-256"):
        SpanReader(folder=broken).best(QUESTION, PASSAGE)
