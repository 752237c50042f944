"""The wait benchmark's figures: percentiles, and ragcore's own time told from the model's."""

from __future__ import annotations

import pytest

from benchmarks.llm.waits import (ModelPass, Wait, largest_stages, own_time, percentile,
                                  pooled_share)


def test_percentiles_interpolate_between_the_closest_ranks():
    values = [4.0, 1.0, 3.0, 2.0, 5.0]
    assert percentile(values, 0.5) == 3.0
    assert percentile(values, 0.9) == pytest.approx(4.6)
    assert percentile([7.0], 0.9) == 7.0
    with pytest.raises(ValueError, match="no values"):
        percentile([], 0.5)


def _wait() -> Wait:
    """A factoid: 1 s to the passages, the gate's pass read 6 s of prompt, the answer wrote
    for 2 s, the check judged for 0.5 s of its 1 s."""
    return Wait(
        passages=1.0, first_token=7.5, written=10.0, whole=11.0, reading=1.25,
        stages=(("embed query", 0.1), ("postprocess: SentenceEmbeddingOptimizer", 0.7),
                ("not-found gate", 6.3), ("llm: qa", 2.5)),
        passes=(ModelPass(7.2, 300, 6.0, 1, 0.0), ModelPass(9.9, 5, 0.2, 30, 1.8),
                ModelPass(10.8, 120, 0.5, 1, 0.0)),
    )


def test_ragcore_own_time_is_the_wait_less_the_model_answer_passes():
    own = own_time(_wait())
    assert own.model == pytest.approx(8.0) and own.judge == pytest.approx(0.5)
    assert own.seconds == pytest.approx(3.0)  # 11 s less 8 s of the model's answer
    assert own.share == pytest.approx(3.0 / 11.0)
    assert own.share_judge_as_model == pytest.approx(2.5 / 11.0)
    stages = own.by_stage
    assert "llm: qa" not in stages
    assert stages["not-found gate"] == pytest.approx(0.3)  # its model pass taken out
    assert stages["check (its judging pass aside)"] == pytest.approx(0.5)
    assert stages["check: the model judging"] == pytest.approx(0.5)
    assert sum(stages.values()) == pytest.approx(own.seconds)  # "between stages": the rest


def test_pooled_share_weighs_each_answer_by_its_time_and_names_the_largest_stages():
    short, long = own_time(_wait()), own_time(Wait(0.5, 2.0, 3.0, 3.0))
    assert pooled_share([short, long]) == pytest.approx((3.0 + 3.0) / 14.0)
    assert largest_stages([short], 2) == [
        ("between stages", pytest.approx(0.9)),  # 3 s less the 2.1 s the stages account for
        ("postprocess: SentenceEmbeddingOptimizer", pytest.approx(0.7))]


def test_a_conditions_rows_judge_its_targets_and_show_its_load():
    from benchmarks.llm.bench_wait import condition_rows, kind_rows

    facts = {"waits": [_wait(), Wait(0.4, 2.0, 3.0, 3.5)], "threads": 1,
             "load": ([4.5, 4.0, 3.0], [5.1, 4.2, 3.1])}
    rows = {row.metric: row for row in condition_rows("idle", facts)}
    assert "load 4.5->5.1" in rows["idle: answers"].note
    assert rows["idle: first content p90"].ok is True  # 0.94 s
    assert rows["idle: whole answer p50"].value == pytest.approx(7.25)  # of 11 s and 3.5 s
    assert rows["idle: whole answer p50"].ok is True
    assert rows["idle: ragcore's own share"].ok is False  # 3 s + 3.5 s (no model pass) of 14.5
    (tokens,) = kind_rows({"list": {"tokens": 500, "kind": "list", "budget": 400, "base": 160,
                                    "calls": ["qa"]}})
    assert tokens.value == 500 and "before (203ce6a, base budget 160): 534" in tokens.note
    # issue 65: a kind's whole answer against the idle factoids' p50, judged where it has a target
    kinds = {"list": {"tokens": 500, "kind": "list", "budget": 400, "base": 160, "calls": ["qa"],
                      "whole": 16.0},
             "why/how": {"tokens": 400, "kind": "why", "budget": 160, "base": 160,
                         "calls": ["qa"], "whole": 30.0},
             "follow-up": {"tokens": 300, "kind": "factoid", "budget": 160, "base": 160,
                           "calls": ["condense", "context chat"], "first turn": 200,
                           "whole": 12.0}}
    rows = {row.metric: row for row in kind_rows(kinds, factoid=7.25)}
    assert rows["whole answer: list / idle factoid p50"].value == pytest.approx(16 / 7.25)
    assert rows["whole answer: list / idle factoid p50"].ok is False  # 2.2x
    assert rows["whole answer: follow-up / idle factoid p50"].ok is False  # 1.66x
    assert rows["whole answer: why/how / idle factoid p50"].ok is None  # no target set
