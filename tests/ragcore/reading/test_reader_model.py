"""The reader trained here: it ships with its recipe and digest, refuses a file that differs,
and reads a question and a sentence together (what the word counts could not)."""

from __future__ import annotations

import json
import shutil

import pytest

from ragcore.errors import ConfigError
from ragcore.reading.model import MODEL_FILE, RECIPE_FILE, WEIGHTS_DIR, Reader
from ragcore.reading.text import reader_text

GRACE = reader_text("The client waits a further interval called the grace period, 45s by "
                    "default.", "", "If a client's local lease timeout expires, it becomes "
                    "unsure whether the master has terminated its session.")
QUESTION = "How long is the grace period of a Chubby client by default?"


def test_the_shipped_weights_carry_their_recipe_and_digest():
    recipe = json.loads((WEIGHTS_DIR / RECIPE_FILE).read_text())
    assert recipe["base"].startswith("all-MiniLM-L6-v2") and len(recipe["sha256"]) == 64
    assert recipe["data"] and recipe["steps"] > 100
    assert (WEIGHTS_DIR / MODEL_FILE).stat().st_size < 40e6  # small enough to ship


def test_the_sentence_stating_the_answer_scores_above_ones_that_do_not():
    stating, removed, about, other = Reader().score(QUESTION, [
        GRACE,
        GRACE.replace(", 45s by default", ""),  # the same words, the answer gone
        reader_text("Chubby clients hold a session with the master."),
        reader_text("MapReduce splits the input files into pieces of 16 to 64 megabytes."),
    ])
    # its chances are low in absolute terms (a fifth of its training pairs were positives)
    assert stating > 0.25 > max(removed, about, other)
    assert stating > 3 * max(removed, about, other)


def test_a_file_that_differs_from_its_digest_is_refused(tmp_path):
    shutil.copy(WEIGHTS_DIR / RECIPE_FILE, tmp_path / RECIPE_FILE)
    data = bytearray((WEIGHTS_DIR / MODEL_FILE).read_bytes())
    data[-1] ^= 0xFF
    (tmp_path / MODEL_FILE).write_bytes(bytes(data))
    with pytest.raises(ConfigError, match="SHA-256"):
        Reader(folder=tmp_path).score(QUESTION, [GRACE])


def test_missing_weights_say_how_to_rebuild_them(tmp_path):
    reader = Reader(folder=tmp_path)
    assert not reader.available
    with pytest.raises(ConfigError, match="training.reader.train"):
        reader.score(QUESTION, [GRACE])


def test_the_text_puts_the_sentence_first_then_its_heading_and_the_sentence_before():
    assert reader_text("  It is  45s. ", "Chubby", "The client waits.") == \
        "It is 45s. | Chubby | The client waits."
    assert reader_text("It is 45s.") == "It is 45s."


def test_a_question_longer_than_the_window_is_read_by_its_start():
    [chance] = Reader().score("How long is the grace period? " * 60, [GRACE])
    assert 0.0 <= chance <= 1.0
