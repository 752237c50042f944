"""The recipe trains on the feature families of the shipped weights, and on no other: the
features the answerer computes besides (rejected experiments) get no weight."""

from __future__ import annotations

import json
import sys
from pathlib import Path

# training/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from training.answerer.families import (  # noqa: E402
    ANSWER_FAMILIES, SPAN_FAMILIES, TYPED_FAMILIES, family, shipped_only,
)
from ragcore.llms.extractive.model import WEIGHTS_FILE  # noqa: E402

SHIPPED = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))


def _families(weights: dict) -> set[str]:
    return {family(name) for name in weights}


def test_a_family_is_the_name_without_kind_or_values():
    assert family("person|prev2=of|prev=Cap") == "{kind}|prev2=|prev="
    assert family("head=river|shape=name") == "head=|shape="
    assert family("date|in_topic") == "{kind}|in_topic"
    assert family("sentence_rank=0") == "sentence_rank="
    assert family("missing_names") == "missing_names"


def test_the_families_are_those_of_the_shipped_weights():
    span = set().union(*(_families(w) for w in SHIPPED["span"].values()))
    typed = set().union(*(_families(w) for w in SHIPPED["span_typed"].values()))
    found = set().union(*(_families(m["weights"]) for m in SHIPPED["found"].values()))
    assert span == SPAN_FAMILIES
    assert typed == TYPED_FAMILIES
    assert found == ANSWER_FAMILIES


def test_the_rejected_features_the_answerer_computes_are_left_out():
    from ragcore.llms.extractive.answer import strip_labels
    from ragcore.llms.extractive.model import answer_features, read
    from ragcore.llms.extractive.rank import Scorer
    from ragcore.llms.extractive.text import candidates

    passage = ("Twilight Princess was released by Nintendo in November 2006. It was led by "
               "Eiji Aonuma, who directed the game in Kyoto. Midna guides Link.")
    question = "Who led the Twilight Princess team?"
    scorer = Scorer(candidates(strip_labels(passage)), None)
    reading = read(scorer, question, scorer.scores(question))
    made = {family(name) for *_, feats in reading.rows for name in feats}
    assert "{kind}|prev_asked|next=" in made or "{kind}|prev2_asked|prev=" in made
    kept = [shipped_only(feats, SPAN_FAMILIES) for *_, feats in reading.rows]
    assert {family(name) for feats in kept for name in feats} <= SPAN_FAMILIES
    assert not any("_asked|" in name for feats in kept for name in feats)

    answered = answer_features(reading, (0.5, 1.0))
    assert {"missing_pairs_share", "missing_name_pairs"} <= answered.keys()
    assert shipped_only(answered, ANSWER_FAMILIES).keys() == \
        answered.keys() - {"missing_pairs_share", "missing_name_pairs"}
