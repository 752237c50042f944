"""What the question names is the question's, not the answer's (issue 64): a sentence stating an
answer need not repeat the question's names or phrases ("The client waits a further interval
called the grace period, 45s by default." does not say "Chubby client"; "Matilda, sister of
Count Baldwin" does not say "Matilda's brother"), only what the answer adds. Where the
question's own phrase is written nowhere, the reader must be sure of the sentence
(``stating.SURE``): "Baldwin and his nephew Arnulf" does not make Baldwin Arnulf's nephew."""

from __future__ import annotations

import pytest

from ragcore.grounding import stating
from ragcore.grounding.holding import holds_answer
from ragcore.grounding.stating import reader_available
from ragcore.grounding.verdict import SUPPORTED, UNSUPPORTED, check_answer

pytestmark = pytest.mark.skipif(not reader_available(), reason="the reader's weights")

ABBEY = ("The abbey was founded in 1120 under the rule of Count Baldwin. Its charter was "
         "witnessed by Matilda, sister of Count Baldwin of Flanders, and by the abbot of Ghent. "
         "Baldwin and his nephew Arnulf later endowed it with the forest of Ardres.")
GRACE = ("If a client's local lease timeout expires, it becomes unsure whether the master has "
         "terminated its session. The client waits a further interval called the grace period, "
         "45s by default.")


def test_a_sentence_holds_an_answer_without_the_names_the_question_gives():
    question = "How long is the grace period of a Chubby client by default?"
    check = check_answer("The grace period of a Chubby client is **45 seconds** by default.",
                         [GRACE], question=question).claims[0]
    sentence = "The client waits a further interval called the grace period, 45s by default."
    assert holds_answer(check, question, sentence)
    assert not holds_answer(check, question, "The client empties and disables its cache.")


def test_a_relation_the_passage_writes_otherwise_is_located_only_where_the_reader_is_sure(
        monkeypatch):
    matilda = ("Who was Matilda's brother?", "**Matilda's brother** was Count Baldwin of Flanders.")
    arnulf = ("Who was Arnulf's nephew?", "**Arnulf's nephew** was Baldwin.")  # the other way
    chances = {q: stating.stated(q, [ABBEY])[0].chance for q, _ in (matilda, arnulf)}
    assert chances[matilda[0]] > chances[arnulf[0]]
    between = (chances[matilda[0]] + chances[arnulf[0]]) / 2
    monkeypatch.setattr(stating, "SURE", between)
    assert check_answer(matilda[1], [ABBEY], question=matilda[0]).label == SUPPORTED
    assert check_answer(arnulf[1], [ABBEY], question=arnulf[0]).label == UNSUPPORTED
    monkeypatch.setattr(stating, "SURE", 1.01)  # never sure: the unwritten phrase refuses
    assert check_answer(matilda[1], [ABBEY], question=matilda[0]).label == UNSUPPORTED
