"""Comparing a rebuilt weights file with the shipped one: identical weights, the largest
difference, names only one holds, thresholds; only what the rebuilt file holds."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# training/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from training.answerer.compare import differences  # noqa: E402


def test_a_rebuild_is_compared_weight_by_weight_and_on_its_threshold():
    shipped = {"span": {"lexical": {"a": 1.0, "b": 0.5, "c": -0.2},
                        "semantic": {"a": 2.0}},
               "found": {"lexical": {"weights": {"bias": 0.1}, "threshold": 0.5185}}}
    rebuilt = {"span": {"lexical": {"a": 1.0, "b": 0.5001, "d": 0.01}},
               "found": {"lexical": {"weights": {"bias": 0.1}, "threshold": 0.5185}}}

    span, found = differences(rebuilt, shipped)  # semantic: not rebuilt, not compared

    assert span["model"] == "span.lexical" and span["identical"] == 1
    assert span["max_diff"] == pytest.approx(1e-4)
    assert span["only_rebuilt"] == ["d"] and span["only_shipped"] == ["c"]
    assert found["threshold"] == (0.5185, 0.5185) and found["identical"] == 1
