"""The answerer's training script: its compact first stage learns what the dict path learns,
it counts features as the recipe of the shipped weights did, it trains on the shipped feature
families only, and where the answer threshold is set."""

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
                   np.array([v for _, v in flat], np.float64))


def test_the_first_stage_on_feature_ids_learns_the_weights_of_feature_dicts():
    rng = random.Random(3)
    vocab, data = Vocabulary(), []
    for q in range(40):
        texts = [f"phrase {q} {k}" for k in range(6)]
        rows = [{"shape=name": float(k == 2), "near": rng.random(), f"rare{q}": 1.0,
                 "zero": 0.0, "twice": float(q < 2 and k == 2)} for k in range(6)]
        data.append(_example(vocab, rows, texts, f"phrase {q} 2", holds=q % 7 != 0))
    data.append(_example(vocab, [{"near": 1.0}], ["nothing"], "elsewhere"))  # no right phrase

    compact = train_first_stage(data, vocab.names)
    dicts = train_spans(span_sets(data, first_stage(vocab.names)))

    assert compact.keys() == dicts.keys() and "shape=name" in compact
    assert not any(name.startswith("rare") for name in compact)  # seen once: left out
    # set twice but named in every row: it counts, as the shipped weights' recipe counted it
    assert compact["twice"] > 0.01
    assert all(compact[name] == pytest.approx(dicts[name], abs=2e-3) for name in compact)
    assert compact["shape=name"] > 1.0


def test_an_example_gives_back_its_rows_as_the_answerer_reads_them():
    vocab = Vocabulary()
    example = _example(vocab, [{"a": 1.0, "b": 0.5}, {"b": 2.0}], ["x", "y"], "y")
    rows = example.rows(vocab.names)
    assert [f for *_, f in rows] == [{"a": 1.0, "b": 0.5}, {"b": 2.0}]
    assert [(k, s.first, s.last) for k, _, s, _ in rows] == [(0, 0, 0), (0, 1, 1)]


def test_the_answer_threshold_keeps_the_answered_training_questions():
    from training.answerer.train import FALSE_NOT_FOUND, train_found
    from ragcore.llms.extractive.model import answer_features, probability

    def asked(score: float, holds: bool) -> Example:
        reading = Reading("other", [0], [], {"sentence_score": score}, 0.5, {})
        return Example("q?", reading, [], set(), holds, np.zeros((0, 3), np.int32),
                       np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.float64))

    learned = [asked(s, True) for s in np.linspace(0.0, 2.0, 100)] + \
        [asked(s, False) for s in np.linspace(-2.0, 0.5, 100)]
    found = train_found(learned, {}, lambda example: ([], []))

    chances = [probability(found["weights"], answer_features(e.reading, None))
               for e in learned if e.holds]
    assert found["threshold"] == pytest.approx(np.quantile(chances, FALSE_NOT_FOUND), abs=1e-3)
    assert np.mean(np.array(chances) >= found["threshold"]) >= 1 - FALSE_NOT_FOUND


def test_one_variant_alone_is_never_written_over_the_shipped_weights(tmp_path):
    from training.answerer.train import arguments

    with pytest.raises(SystemExit):
        arguments(["--variant", "lexical"])
    args = arguments(["--variant", "lexical", "--out", str(tmp_path / "lexical.json")])
    assert args.variant == ["lexical"]
    assert arguments([]).variant == ["semantic", "lexical"]
