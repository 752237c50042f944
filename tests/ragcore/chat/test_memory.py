"""ChatMemory: newest first within the limit, system kept, huge messages cut, JSON round trip."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.errors import ConfigError
from ragcore.llms.fake import FakeLLM
from ragcore.memory import DEFAULT_TOKEN_LIMIT, ChatMemory
from ragcore.tokens import count_tokens
from ragcore.types import Message, ToolCall


def tokens(messages: list[Message]) -> int:
    return sum(ChatMemory._size(m) for m in messages)


def conversation(memory: ChatMemory, turns: int, words: int = 10) -> None:
    for i in range(turns):
        memory.put(Message("user", f"question {i} " + "word " * words))
        memory.put(Message("assistant", f"answer {i} " + "reply " * words))


def test_everything_is_returned_when_it_fits():
    memory = ChatMemory(token_limit=1000)
    conversation(memory, 3)
    assert memory.get() == memory.messages
    assert len(memory) == 6


def test_oldest_turns_are_dropped_first_in_whole_pairs():
    memory = ChatMemory(token_limit=150)
    conversation(memory, 10)
    got = memory.get()
    assert tokens(got) <= 150
    assert got[-1].content.startswith("answer 9")
    assert got[0].role == "user"  # never starts with an orphan assistant reply
    numbers = [int(m.content.split()[1]) for m in got]
    assert numbers == sorted(numbers) and numbers[0] > 0
    assert len(memory.messages) == 20  # storage keeps everything


def test_system_messages_are_kept_when_old_turns_go():
    memory = ChatMemory(token_limit=120)
    memory.put(Message("system", "You are terse."))
    conversation(memory, 10)
    got = memory.get()
    assert got[0] == Message("system", "You are terse.")
    assert "question 0" not in " ".join(m.content for m in got)
    assert tokens(got) <= 120


def test_extra_tokens_and_max_tokens_shrink_the_budget():
    memory = ChatMemory(token_limit=400)
    conversation(memory, 10)
    full = memory.get()
    with_extra, capped = memory.get(extra_tokens=200), memory.get(max_tokens=100)
    assert tokens(with_extra) <= 200 < tokens(full)
    assert tokens(capped) <= 100
    assert with_extra[-1] == full[-1]


def test_a_single_huge_message_is_cut_with_a_visible_note():
    memory = ChatMemory(token_limit=200)
    conversation(memory, 2)
    huge = "start of paste. " + "lorem ipsum dolor sit amet " * 400 + "What does it say?"
    memory.put(Message("user", huge))
    got = memory.get()
    assert len(got) == 1 and got[0].role == "user"
    assert tokens(got) <= 200
    text = got[0].content
    assert text.startswith("start of paste.")
    assert text.endswith("What does it say?")  # the question at the end survives
    assert "cut here to fit the chat memory limit" in text
    assert memory.messages[-1].content == huge  # storage is untouched


def test_tool_messages_are_never_left_without_their_call():
    memory = ChatMemory(token_limit=100)
    memory.put(Message("user", "look it up"))
    memory.put(Message("assistant", "", tool_calls=[ToolCall("c1", "search", '{"q": "x"}')]))
    memory.put(Message("tool", "result " * 300, tool_call_id="c1"))
    memory.put(Message("assistant", "It says x."))
    got = memory.get()
    roles = [m.role for m in got]
    assert "tool" not in roles or roles[roles.index("tool") - 1] == "assistant"
    assert got[0].content == "look it up" and got[-1].content == "It says x."
    assert tokens(got) <= 100
    # The oversized tool round (the call and its result) is dropped whole, not half of it.
    assert roles == ["user", "assistant"]
    # With room for it, the round stays, the result right after its call.
    roomy = ChatMemory(token_limit=3000)
    for message in memory.messages:
        roomy.put(message)
    assert [m.role for m in roomy.get()] == ["user", "assistant", "tool", "assistant"]


def test_a_budget_below_anything_useful_returns_nothing_rather_than_too_much():
    memory = ChatMemory(token_limit=100)
    conversation(memory, 2)
    assert memory.get(extra_tokens=99) == []
    assert memory.get(extra_tokens=500) == []


def test_retrying_an_unanswered_message_does_not_duplicate_it():
    memory = ChatMemory()
    memory.put_user_message("hello")
    memory.put_user_message("hello")  # the first attempt failed: this is the retry
    assert [m.content for m in memory.messages] == ["hello"]
    memory.put(Message("assistant", "hi"))
    memory.put_user_message("hello")  # answered before: a new turn
    assert [m.content for m in memory.messages] == ["hello", "hi", "hello"]


def test_json_round_trip_keeps_messages_and_limit():
    memory = ChatMemory(token_limit=777)
    memory.put(Message("system", "Be kind."))
    memory.put(Message("user", "héllo ✓"))
    memory.put(Message("assistant", "", tool_calls=[ToolCall("c1", "f", "{}")]))
    memory.put(Message("tool", "42", tool_call_id="c1", name="f"))
    restored = ChatMemory.from_json(memory.to_json())
    assert restored.messages == memory.messages
    assert restored.token_limit == 777
    assert restored.get() == memory.get()


def test_from_json_rejects_foreign_json_with_a_hint():
    with pytest.raises(ConfigError, match="to_json"):
        ChatMemory.from_json('{"messages": []}')
    with pytest.raises(ConfigError, match="cannot be read"):
        ChatMemory.from_json("not json")


def test_from_llm_keeps_the_fixed_limit_unless_the_window_is_smaller():
    # A large window does not grow what every prompt reads of the conversation (issue 65).
    for window in (2048, 4096, 128_000):
        memory = ChatMemory.from_llm(FakeLLM(context_window=window, num_output=256))
        assert memory.token_limit == DEFAULT_TOKEN_LIMIT
    small = ChatMemory.from_llm(FakeLLM(context_window=400, num_output=200))
    assert small.token_limit == int((400 - 200) * 0.75)
    with pytest.raises(ConfigError, match="context_window"):
        ChatMemory.from_llm(FakeLLM(context_window=100, num_output=90))


@pytest.mark.parametrize("bad", [0, -5, 10, "100", 1.5, True])
def test_bad_token_limits_are_refused(bad):
    with pytest.raises(ConfigError, match="token_limit"):
        ChatMemory(token_limit=bad)


def test_reset_empties_the_memory():
    memory = ChatMemory()
    conversation(memory, 2)
    memory.reset()
    assert memory.messages == [] and memory.get() == []


def test_put_refuses_non_messages():
    with pytest.raises(TypeError, match="Message"):
        ChatMemory().put({"role": "user", "content": "x"})  # type: ignore[arg-type]


def test_count_tokens_is_consistent_with_the_limit_unit():
    memory = ChatMemory()
    memory.put(Message("user", "one two three"))
    assert memory.token_count() == count_tokens("one two three") + 4


@st.composite
def histories(draw):
    messages = []
    for _ in range(draw(st.integers(0, 12))):
        size = draw(st.sampled_from([1, 5, 40, 400]))
        kind = draw(st.sampled_from(["user", "assistant", "call", "system"]))
        text = "word " * size
        if kind == "call":
            arguments = '{"x": "' + "y " * draw(st.sampled_from([0, 300])) + '"}'
            messages.append(Message("assistant", "", tool_calls=[ToolCall("c", "f", arguments)]))
            messages.append(Message("tool", text, tool_call_id="c"))
        else:
            messages.append(Message(kind, text))
    return messages


@settings(max_examples=300, deadline=None)
@given(messages=histories(), limit=st.integers(64, 800), extra=st.integers(0, 900))
def test_get_never_exceeds_the_budget_or_orphans_a_tool_message(messages, limit, extra):
    memory = ChatMemory(token_limit=limit)
    for message in messages:
        memory.put(message)
    got = memory.get(extra_tokens=extra)
    assert tokens(got) <= max(0, limit - extra)
    others = [m for m in got if m.role != "system"]
    for i, message in enumerate(others):
        if message.role == "tool":
            assert i > 0 and (others[i - 1].tool_calls or others[i - 1].role == "tool")
        if message.tool_calls:  # a call is never sent without its result
            assert i + 1 < len(others) and others[i + 1].role == "tool"


def test_a_huge_tool_call_that_cannot_be_cut_is_dropped_not_looped_on():
    memory = ChatMemory(token_limit=100)
    memory.put(Message("user", "go"))
    arguments = '{"x": "' + "y " * 500 + '"}'
    memory.put(Message("assistant", "", tool_calls=[ToolCall("c", "f", arguments)]))
    memory.put(Message("tool", "done", tool_call_id="c"))
    memory.put(Message("assistant", "finished"))
    got = memory.get()
    assert [m.content for m in got] == ["go", "finished"]


def test_earlier_is_the_conversation_before_the_latest_message_within_both_limits():
    memory = ChatMemory(token_limit=200)
    conversation(memory, 10)
    question = "so what now? " + "word " * 60
    memory.put_user_message(question)
    room = 200 - ChatMemory._size(Message("user", question))  # the limit covers the question
    got = memory.earlier(question, budget=10_000)
    assert question not in [m.content for m in got]  # the prompt places the message itself
    assert room - 30 < tokens(got) <= room
    assert got[-1].content.startswith("answer 9") and got[0].role == "user"
    small = memory.earlier(question, budget=60)
    assert tokens(small) <= 60 and small[-1].content.startswith("answer 9")
    assert memory.earlier(question, budget=0) == []
    assert memory.get() != got  # get() counts the question like any other message


def test_earlier_keeps_at_most_the_latest_turns_asked_for():
    memory = ChatMemory(token_limit=2_000)
    conversation(memory, 10)
    memory.put_user_message("and then?")
    latest = memory.earlier("and then?", budget=10_000, turns=1)
    assert [m.role for m in latest] == ["user", "assistant"]
    assert latest[-1].content.startswith("answer 9")
    assert len(memory.earlier("and then?", budget=10_000, turns=3)) == 6
    assert memory.earlier("and then?", budget=10_000, turns=0) == []
    assert len(memory.earlier("and then?", budget=10_000, turns=50)) == 20


def test_a_question_longer_than_the_limit_leaves_no_history_but_is_not_cut():
    memory = ChatMemory(token_limit=100)
    conversation(memory, 3)
    question = "word " * 300
    memory.put_user_message(question)
    assert memory.earlier(question, budget=10_000) == []
    assert memory.messages[-1].content == question
