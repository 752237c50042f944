"""Only a follow-up is rewritten, and a turn's prompts do not grow with the chat (issue 65): a
scripted model sized like the packaged one (2,048-token window, 384 reserved for the reply)."""

from __future__ import annotations

import pytest

from ragcore.chat import CondensePlusContextChatEngine
from ragcore.chat.follow_up import refers_back
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.prompts import message_tokens
from ragcore.trace import Trace
from ragcore.types import Node, ScoredNode

STANDALONE = [
    "Who wrote the annual report?",
    "What is the upper bound on the lock-delay?",
    "Where is Intel going to build its semiconductor mega site?",  # "its": Intel, named first
    "Why did the United States release oil from its reserves?",
    "What is the law that caps insulin?",  # "that" joins a clause, it points nowhere
    "Is there a plan to fight inflation?",
    "Who is Putin?",
    "Summarise pep-0020.rst",
]
FOLLOW_UPS = [
    "and what about its page count?",
    "And how many of them must be running for the cell to be up?",
    "What about inflation?",
    "And GM?",
    "Why?",
    "How many?",
    "Tell me more",
    "What else did the speech say?",
    "What does this PEP say about tabs?",
    "When was it published?",
]


@pytest.mark.parametrize("question", STANDALONE)
def test_a_question_that_stands_on_its_own_does_not_refer_back(question):
    assert refers_back(question) == ""


@pytest.mark.parametrize("question", FOLLOW_UPS)
def test_a_follow_up_refers_back_and_says_how(question):
    assert refers_back(question).startswith("it ")


class Passages:
    """The same two passages for every query (records the queries)."""

    def __init__(self):
        self.queries: list[str] = []

    def retrieve(self, query, *, trace=None):
        self.queries.append(query)
        return [ScoredNode(Node(f"Passage {i}: " + "The report covers the year's work. " * 12,
                                node_id=f"p{i}"), 0.5) for i in range(2)]


def rewrite_or_answer(messages) -> str:
    """A rewrite for the condense prompt, a ~110-token answer for the rest."""
    if "rewrite" in messages[0].content:
        return "What is the page count of the annual report written by Dana Reyes?"
    return "The report says that the work of the year went well in every office. " * 7


def test_a_question_that_stands_on_its_own_is_searched_as_written_with_no_rewrite():
    llm = FakeLLM(default=rewrite_or_answer, context_window=2048, num_output=384)
    retriever = Passages()
    engine = CondensePlusContextChatEngine(retriever, llm=llm)
    memory = ChatMemory.from_llm(llm)
    engine.chat("Who wrote the annual report?", memory).text
    trace = Trace()
    # Regenerate asks the same question again after the chat was cut before it.
    reply = engine.chat("What is the upper bound on the lock-delay?", memory, trace=trace)
    reply.text
    assert len(llm.calls) == 2  # no condense call: the two answers only
    assert retriever.queries[-1] == "What is the upper bound on the lock-delay?"
    assert reply.question == "What is the upper bound on the lock-delay?"  # checked as written
    assert trace.notes["condense_skipped"] == "the question stands on its own"
    assert [c.purpose for c in trace.llm_calls] == ["context chat"]


def test_a_follow_up_is_rewritten_from_the_latest_turn_only():
    # Short replies: the memory holds all three turns, the rewrite reads the latest one.
    llm = FakeLLM(default=lambda m: "A rewrite?" if "rewrite" in m[0].content else "Five.",
                  context_window=2048, num_output=384)
    retriever = Passages()
    engine = CondensePlusContextChatEngine(retriever, llm=llm)
    memory = ChatMemory.from_llm(llm)
    for question in ("How many replicas does a Chubby cell have?",
                     "Who wrote the Bigtable paper?",
                     "What did the MapReduce paper measure?"):
        engine.chat(question, memory).text
    trace = Trace()
    engine.chat("And how many of them must be running?", memory, trace=trace).text
    condense = llm.calls[-2]
    assert "rewrite" in condense[0].content
    assert "What did the MapReduce paper measure?" in condense[-1].content  # the latest turn
    assert "Chubby" not in condense[-1].content and "Bigtable" not in condense[-1].content
    assert trace.notes["follow_up"] == "it refers back (“them”)"
    assert retriever.queries[-1] == trace.notes["condensed_question"]


def turn_tokens(llm: FakeLLM, engine, memory: ChatMemory, question: str) -> dict[str, int]:
    """Tokens of each prompt the turn sent the model, by purpose."""
    trace = Trace()
    engine.chat(question, memory, trace=trace).text
    return {c.purpose: sum(message_tokens(m) for m in c.messages) for c in trace.llm_calls}


def test_the_twentieth_turn_reads_no_more_than_the_second():
    llm = FakeLLM(default=rewrite_or_answer, context_window=2048, num_output=384)
    engine = CondensePlusContextChatEngine(Passages(), llm=llm)
    memory = ChatMemory.from_llm(llm)  # as the app's chat turn builds it (memory_for_chat)
    questions = ["Who wrote the annual report of the northern office?",
                 "And how many pages does it have?"] * 10
    turns = [turn_tokens(llm, engine, memory, q) for q in questions]
    second, twentieth = turns[1], turns[19]
    assert set(second) == set(twentieth) == {"condense", "context chat"}
    margin = 16  # tokens: the questions are the same, the replies of one length
    for purpose in second:
        assert twentieth[purpose] <= second[purpose] + margin, (purpose, turns)
    assert max(sum(t.values()) for t in turns[1:]) <= sum(second.values()) + margin


def test_every_answer_prompt_opens_with_the_same_instructions():
    # The model's slot reuses a prompt's opening from its cache as far as it agrees with the
    # last one: the instructions must come first and stay the same from turn to turn.
    from ragcore.prompts.chat import CONTEXT_CHAT

    llm = FakeLLM(default=rewrite_or_answer, context_window=2048, num_output=384)
    engine = CondensePlusContextChatEngine(Passages(), llm=llm, system_prompt="Be brief.")
    memory = ChatMemory.from_llm(llm)
    for question in ("Who wrote the annual report?", "And how many pages does it have?",
                     "What is the upper bound on the lock-delay?"):
        engine.chat(question, memory).text
    answers = [call for call in llm.calls if "rewrite" not in call[0].content]
    instructions = "Be brief.\n\n" + CONTEXT_CHAT.system.split("{context}")[0]
    assert len(answers) == 3
    assert all(call[0].content.startswith(instructions) for call in answers)
