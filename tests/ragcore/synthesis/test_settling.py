"""A factoid's reply ends after its short answer when the check vouches for it alone: the model
is stopped there, since what is shown is the short answer with its passage sentence
(``CheckedReply.settling``, ``AnswerCheck.settled``)."""

from __future__ import annotations

from ragcore.present.markers import AnswerCheck
from ragcore.synthesis import Response
from ragcore.synthesis.response import SETTLED_NOTE
from ragcore.types import Node, ScoredNode

PASSAGE = ("The lighthouse was built in 1867 by the harbour board. "
           "Its lamp is lit between 18:00 and 06:00 in winter.")
NODES = [ScoredNode(Node(PASSAGE), 0.9)]


class Model:
    """The chunks a model writes, and whether it was stopped before its last."""

    def __init__(self, chunks: list[str]) -> None:
        self.chunks = chunks
        self.written: list[str] = []
        self.stopped = False

    def __call__(self):
        try:
            for chunk in self.chunks:
                self.written.append(chunk)
                yield chunk
        except GeneratorExit:
            self.stopped = True
            raise


def reply(model: Model, question: str, check=None) -> Response:
    response = Response(model, source_nodes=list(NODES))
    response.check, response.question = (check or AnswerCheck()), question
    return response


class Counting(AnswerCheck):
    """The check, counting the answers it checks."""

    checked = 0

    def __call__(self, answer, nodes, **options):
        Counting.checked += 1
        return super().__call__(answer, nodes, **options)


def test_a_vouched_short_answer_ends_the_reply_and_stops_the_model():
    model = Model(["*", "*", "1867", "**", ".", " The", " lighthouse", " was", " built", "."])
    Counting.checked = 0
    response = reply(model, "In what year was the lighthouse built?", Counting())
    assert response.text == "**1867**."
    assert model.stopped and len(model.written) == 5
    assert SETTLED_NOTE in response.trace.notes
    assert response.shown.startswith("**1867**. \u201cThe lighthouse was built in 1867")
    assert Counting.checked == 0  # the short answer's own check is the reply's: made once


def test_a_short_answer_not_vouched_for_is_written_whole():
    chunks = ["**", "1901", "**", ".", " It", " was", " rebuilt", "."]
    model = Model(chunks)
    response = reply(model, "In what year was the lighthouse built?")
    assert response.text == "".join(chunks) and not model.stopped
    assert SETTLED_NOTE not in response.trace.notes


def test_a_reply_that_opens_with_no_short_answer_is_never_asked_about():
    class Asked(AnswerCheck):
        asked = 0

        def settled(self, lead, nodes, **options):
            Asked.asked += 1
            return super().settled(lead, nodes, **options)

    chunks = ["The", " lamp", " is", " lit", " at", " **18:00**", "."]
    response = reply(Model(chunks), "When is the lamp lit?", Asked())
    assert response.text == "".join(chunks) and Asked.asked == 0
    # a list or an explanation is not one fact: its short answer never ends it
    model = Model(["**", "1867", "**", ".", " Because", " the", " board", " paid", "."])
    assert AnswerCheck().settled("**1867**.", NODES,
                                 question="Why was the lighthouse built?") is None
    assert reply(model, "Why was the lighthouse built?").text.endswith("paid.")
