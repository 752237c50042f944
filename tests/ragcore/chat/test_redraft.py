"""A chat reply begun with "**" whose short answer answers nothing (the question's own words, no
name where a name is asked for) is written again without its opening, from the same prompt
(``chat.redraft``); one that answers goes on as it came."""

from __future__ import annotations

from ragcore.chat import CondensePlusContextChatEngine
from ragcore.chat.redraft import redrafted, short_answer
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.present.markers import AnswerCheck
from ragcore.types import Node, ScoredNode

PASSAGE = ("“Your Majesty had not spoken before I was aware that I was addressing Wilhelm "
           "Gottsreich Sigismond von Ormstein, hereditary King of Bohemia.”")
NODES = [ScoredNode(Node(PASSAGE), 0.9)]
QUESTION = "What is the name of the King of Bohemia?"
RIGHT = "The King of Bohemia is Wilhelm Gottsreich Sigismond von Ormstein."


class Continuing(FakeLLM):
    continues_replies = True


class Found:
    def retrieve(self, query, *, trace=None):
        return list(NODES)


def test_a_short_answer_of_the_questions_own_words_is_written_again_not_begun():
    llm = Continuing(["King of Bohemia**. He is the King.", RIGHT], chunk_size=1)
    memory = ChatMemory.from_llm(llm)
    response = CondensePlusContextChatEngine(Found(), llm=llm, check=AnswerCheck()).chat(
        QUESTION, memory)
    assert response.text == RIGHT
    first, second = llm.calls
    assert first[-1].content == "**" and second == first[:-1]  # the same prompt, not begun
    assert "King of Bohemia" in response.trace.notes["redrafted"]
    assert memory.messages[-1].content == RIGHT
    assert "Ormstein" in response.shown and "don't say" not in response.shown


def test_a_short_answer_that_answers_goes_on_as_it_came():
    llm = Continuing(["Wilhelm Gottsreich Sigismond von Ormstein**. He said so."], chunk_size=1)
    response = CondensePlusContextChatEngine(Found(), llm=llm, check=AnswerCheck()).chat(
        QUESTION, ChatMemory.from_llm(llm))
    assert response.text.startswith("**Wilhelm Gottsreich Sigismond von Ormstein**")
    assert len(llm.calls) == 1 and "redrafted" not in response.trace.notes


def test_the_first_draft_is_closed_when_it_is_written_again_or_the_reader_stops():
    closed = []

    def model(chunks):
        try:
            yield from chunks
        finally:
            closed.append(True)

    notes: dict = {}
    echoed = model(["**King", " of Bohemia**", ". The King", " spoke."])  # held: not collected
    again = redrafted(echoed, QUESTION, lambda: iter([RIGHT]), notes)
    assert list(again) == [RIGHT] and closed == [True] and "redrafted" in notes
    answered = model(["**Wilhelm**", " is his", " name."])
    kept = redrafted(answered, QUESTION, lambda: iter(["x"]), {})
    assert next(kept) == "**Wilhelm**"
    kept.close()
    assert closed == [True, True]


def test_the_short_answer_is_read_once_its_closing_marks_are_written():
    assert short_answer("**King of") is None and short_answer("*") is None
    assert short_answer("**King of Bohemia**.") == "King of Bohemia"
    assert short_answer("The King is Wilhelm.") == ""
