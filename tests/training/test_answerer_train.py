"""The answerer's training script: its compact first stage learns what the dict path learns,
its negatives, and where the answer threshold is set."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest

# training/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from training.answerer.train import (  # noqa: E402
    Example, Vocabulary, span_sets, first_stage, train_first_stage, train_spans,
)
from ragcore.llms.extractive.model import Reading  # noqa: E402


def _example(vocab: Vocabulary, rows: list[dict], texts: list[str], gold: str,
             holds: bool = True) -> Example:
    encoded = [vocab.encode(f) for f in rows]
    flat = [pair for pairs in encoded for pair in pairs]
    return Example("q?", Reading("other", [0], [], {}, 0.0, {}), texts, {gold}, holds,
                   np.array([(0, k, k) for k in range(len(rows))], np.int32),
                   np.cumsum([0] + [len(p) for p in encoded[:-1]]).astype(np.int64),
                   np.array([c for c, _ in flat], np.int32),
                   np.array([v for _, v in flat], np.float32))


def test_the_first_stage_on_feature_ids_learns_the_weights_of_feature_dicts():
    rng = random.Random(3)
    vocab, data = Vocabulary(), []
    for q in range(40):
        texts = [f"phrase {q} {k}" for k in range(6)]
        rows = [{"shape=name": float(k == 2), "near": rng.random(), f"rare{q}": 1.0,
                 "zero": 0.0} for k in range(6)]
        data.append(_example(vocab, rows, texts, f"phrase {q} 2", holds=q % 7 != 0))
    data.append(_example(vocab, [{"near": 1.0}], ["nothing"], "elsewhere"))  # no right phrase

    compact = train_first_stage(data, vocab.names)
    dicts = train_spans(span_sets(data, first_stage(vocab.names)))

    assert compact.keys() == dicts.keys() and "shape=name" in compact
    assert not any(name.startswith("rare") for name in compact)  # seen once: left out
    assert all(compact[name] == pytest.approx(dicts[name], abs=2e-3) for name in compact)
    assert compact["shape=name"] > 1.0


def test_an_example_gives_back_its_rows_as_the_answerer_reads_them():
    vocab = Vocabulary()
    example = _example(vocab, [{"a": 1.0, "b": 0.5}, {"b": 2.0}], ["x", "y"], "y")
    rows = example.rows(vocab.names)
    assert [f for *_, f in rows] == [{"a": 1.0, "b": 0.5}, {"b": 2.0}]
    assert [(k, s.first, s.last) for k, _, s, _ in rows] == [(0, 0, 0), (0, 1, 1)]


def test_a_name_mix_keeps_every_word_of_the_passages_but_never_the_name():
    from training.answerer.negatives import name_mixes

    context = "Twilight Princess was released by Nintendo in 2006; Midna guides Link."
    row = {"id": "q", "question": "When was Twilight Princess released?", "asked": "",
           "context": context, "impossible": False, "answers": ["2006"]}
    mixed = name_mixes([{**row, "id": "skipped"}, row])  # every third, from the second on
    assert len(mixed) == 1 and mixed[0]["impossible"] and mixed[0]["id"] == "q-name-mix"
    name = mixed[0]["question"][len("When was "):-len(" released?")]
    assert name not in context and all(word in context for word in name.split())
    assert mixed[0]["asked"] == mixed[0]["question"]
    opening = {**row, "question": "Which Twilight Princess enemy came in 2006?"}
    assert "Twilight Princess" not in name_mixes([row, opening])[0]["question"]


def test_the_answer_threshold_is_set_on_the_calibration_questions_not_the_learned_ones():
    from training.answerer.train import FALSE_NOT_FOUND, train_found
    from ragcore.llms.extractive.model import answer_features, probability

    def asked(score: float, holds: bool) -> Example:
        reading = Reading("other", [0], [], {"sentence_score": score}, 0.5, {})
        return Example("q?", reading, [], set(), holds, np.zeros((0, 3), np.int32),
                       np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float32))

    learned = [asked(2.0 + k / 50, True) for k in range(50)] + \
        [asked(-2.0 - k / 50, False) for k in range(50)]
    calibration = [asked(s, True) for s in np.linspace(-1.0, 1.0, 100)]
    found = train_found(learned, {}, lambda example: ([], []), calibration)

    chances = [probability(found["weights"], answer_features(e.reading, None))
               for e in calibration]
    assert found["threshold"] == pytest.approx(np.quantile(chances, FALSE_NOT_FOUND), abs=1e-3)
    fitted = probability(found["weights"], answer_features(learned[0].reading, None))
    assert found["threshold"] < fitted - 0.1  # far under what the learned positives score
