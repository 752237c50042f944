"""The reader's recipe rebuilds: its pairs are what the recipe says, and a slice of them trains
and exports to a file the app's reader opens."""

from __future__ import annotations

import collections
import json
import sys
from pathlib import Path

import pytest

# training/ is a folder of the checkout, not part of the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import random  # noqa: E402

from training.reader.answered import answered_pairs  # noqa: E402
from training.reader.pairs import pairs_of, swapped  # noqa: E402

ARTICLE = {"title": "Chubby", "paragraphs": [
    {"context": "Chubby is a lock service. A client holds a session with the master. "
                "The client waits a further interval called the grace period, 45s by default.",
     "qas": [{"id": "q1", "question": "How long is the grace period by default?",
              "answers": [{"text": "45s", "answer_start": 129}], "is_impossible": False},
             {"id": "q2", "question": "What database does Chubby store its locks in?",
              "answers": [], "is_impossible": True}]},
    {"context": "Bigtable uses Chubby to keep track of tablet servers.",
     "qas": [{"id": "q3", "question": "What does Bigtable use Chubby for?",
              "answers": [{"text": "to keep track of tablet servers", "answer_start": 21}],
              "is_impossible": False}]}]}


def test_the_answer_sentence_is_the_one_positive_and_its_answer_removed_is_a_negative():
    pairs = [p for p in pairs_of([ARTICLE]) if p.group == "q1"]
    kinds = collections.Counter((p.kind, p.label) for p in pairs)
    assert kinds[("answer", 1.0)] == 1 and sum(p.label for p in pairs) == 1.0
    positive = next(p for p in pairs if p.label == 1.0)
    # the sentence first, then its heading and the sentence before it
    assert positive.text.startswith("The client waits a further interval called the grace "
                                    "period, 45s by default.")
    assert "Chubby" in positive.text and "A client holds a session" in positive.text
    removed = next(p for p in pairs if p.kind == "answer removed")
    assert "45s" not in removed.text and "period, by default." in removed.text
    assert any(p.kind == "same paragraph" for p in pairs)
    assert any(p.kind == "sibling" and "Bigtable" in p.text for p in pairs)


def test_an_unanswerable_question_gives_only_negatives():
    pairs = [p for p in pairs_of([ARTICLE]) if p.group == "q2"]
    assert pairs and all(p.label == 0.0 and p.kind == "unanswerable" for p in pairs)


def test_a_swapped_question_is_one_its_answer_sentence_no_longer_answers():
    rng = random.Random(0)
    sentence = "Zelda sacrifices herself to heal Midna with her power."
    # a name of the article the sentence lacks, in place of the question's own
    assert swapped("Who saves Midna?", sentence, ["Link", "Zelda"], [], rng) == (
        "swapped name", "Who saves Link?")
    # "not" after the auxiliary and its subject, where the sentence negates nothing
    assert swapped("When did Beyonce release Lemonade?", "Beyonce released Lemonade in 2016.",
                   [], [], rng) == ("not", "When did Beyonce not release Lemonade?")
    # an antonym the sentence does not hold
    assert swapped("What was the largest city?", "Paris was the largest city.", [], [], rng
                   ) == ("antonym", "What was the smallest city?")


def test_with_swaps_half_the_answerable_questions_add_one_negative():
    # the grace-period question asked 20 times: those drawn (half) that a swap fits give one
    asked = [{**ARTICLE["paragraphs"][0]["qas"][0], "id": f"q{n}"} for n in range(20)]
    article = {**ARTICLE, "paragraphs": [{**ARTICLE["paragraphs"][0], "qas": asked},
                                         ARTICLE["paragraphs"][1]]}
    plain, swaps = pairs_of([article]), pairs_of([article], swaps=True)
    added = [p for p in swaps if p.kind not in {q.kind for q in plain}]
    assert len(swaps) - len(plain) == len(added) and all(p.label == 0.0 for p in added)
    ours = [p for p in added if p.group.startswith("q") and p.group != "q3"]
    assert 1 <= len(ours) <= len(asked)
    assert all(p.question != asked[0]["question"] for p in ours)
    assert all(p.text.startswith("The client waits a further interval") for p in ours)


def test_an_answered_pair_gives_the_answer_and_every_negative_holds_its_phrase():
    pairs = [p for p in answered_pairs([ARTICLE]) if p.group == "q1"]
    positive = [p for p in pairs if p.label == 1.0]
    assert [p.kind for p in positive] == ["answered"]
    # the question with the answer a reply gives, against the answer's own sentence
    assert positive[0].question.startswith("How long is the grace period by default? | answer:")
    assert "45s" in positive[0].question
    assert positive[0].text.startswith("The client waits a further interval")
    for pair in pairs:
        if pair.label == 0.0:  # the sentence holds the phrase given, and it is not the answer
            phrase = pair.question.split(" | answer: ")[1]
            assert phrase.casefold() in pair.text.split(" | ")[0].casefold()
            assert pair.kind in {"another phrase", "elsewhere", "the answer elsewhere",
                                 "near miss"}
            assert pair.kind == "near miss" or "45s" not in phrase
    plausible = [p for p in answered_pairs([ARTICLE]) if p.group == "q2"]
    assert plausible == []  # an unanswerable question without a plausible answer gives none


@pytest.mark.slow
def test_a_slice_trains_and_exports_a_file_the_reader_opens(tmp_path):
    from ragcore.reading.model import MODEL_FILE, RECIPE_FILE, Reader
    from training.reader.train import main

    main(["--pairs", "48", "--answered", "16", "--checkpoint", str(tmp_path / "checkpoint"),
          "--out", str(tmp_path / "out")])
    recipe = json.loads((tmp_path / "out" / RECIPE_FILE).read_text())
    assert recipe["steps"] == 2 and recipe["pairs"] == 48 and len(recipe["sha256"]) == 64
    assert recipe["answered"] == 16 and recipe["masked"]
    assert (tmp_path / "out" / MODEL_FILE).stat().st_size < 30e6
    [chance] = Reader(folder=tmp_path / "out").score("When?", ["In 1990."])
    assert 0.0 < chance < 1.0
