"""The prompt budget: every prompt any engine sends keeps the user's latest message and fits the
model's window, whatever the window, top-k, memory limit, tool-output size or step count; what
was cut is noted in the trace; a message that cannot fit raises an error saying what to change.

Driven through every chat mode and both agents with a recording FakeLLM, and against the
loopback server for the wire shapes of Ollama and OpenAI-compatible backends.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.agent import FunctionCallingAgent, ReActAgent
from ragcore.chat import ContextChatEngine
from ragcore.errors import ConfigError, PromptTooLongError
from ragcore.engines.from_index import chat_engine_from_index
from ragcore.llms.fake import FakeLLM
from ragcore.llms.ollama import OllamaLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.memory import ChatMemory
from ragcore.prompt_budget import PromptBudget, Room, clip, fit_steps, tokens_of
from ragcore.prompts import FOLLOW_UP, QUESTION, message_tokens
from ragcore.streaming import EMPTY_REPLY
from ragcore.synthesis import Synthesizer
from ragcore.tokens import count_tokens
from ragcore.tools import FunctionTool
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode, ToolCall

SYSTEM_PROMPT = "You are a careful librarian; answer in plain words."
MODES = ("simple", "condense_question", "context", "condense_plus_context", "react",
         "function_calling")


def words(n: int, word: str = "lorem") -> str:
    """About ``n`` tokens of text."""
    return " ".join([word] * max(n, 0))


class Passages:
    """An index whose retriever returns ``similarity_top_k`` passages of a given size."""

    def __init__(self, size: int = 300):
        self.size = size

    def as_retriever(self, *, similarity_top_k=4, **_):
        return _Retriever(similarity_top_k, self.size)


class _Retriever:
    def __init__(self, k: int, size: int):
        self.k, self.size = k, size

    def retrieve(self, query, *, trace=None):
        return [
            ScoredNode(Node(f"Passage {i}: " + words(self.size, "ipsum"), node_id=f"p{i}"),
                       1.0 - i / 100)
            for i in range(self.k)
        ]


def scripted(message: str, *, steps: int, tool_tokens: int):
    """A reply function playing every role a prompt can ask of the model."""
    react_steps = []

    def reply(messages: list[Message]) -> str:
        system, last = messages[0].content, messages[-1].content
        if "Action Input:" in system:  # a ReAct step
            react_steps.append(1)
            if len(react_steps) <= steps:
                return ("Thought: search more\nAction: search_documents\nAction Input: "
                        + json.dumps({"input": message}))
            return "Thought: enough\nAnswer: the final answer"
        if f"{FOLLOW_UP} " in last:  # condense
            return f"{message} in the annual report"
        if f"{QUESTION} " in last:  # synthesis (also inside the search tool)
            return words(tool_tokens, "fact")
        return "a chat answer"

    return reply


def tool_rounds(message: str, steps: int, calls_per_round: int) -> list[Message]:
    arguments = json.dumps({"input": message})
    rounds = [
        Message("assistant", "", tool_calls=[
            ToolCall(f"c{r}_{c}", "search_documents", arguments) for c in range(calls_per_round)
        ])
        for r in range(steps)
    ]
    return rounds + [Message("assistant", "the final answer")]


def prompts_sent(llm: FakeLLM) -> list[tuple[list[Message], int]]:
    """Every prompt the engine sent and its token cost (tool schemas included)."""
    sent = [(messages, tokens_of(messages)) for messages in llm.calls]
    sent += [(m, tokens_of(m) + count_tokens(json.dumps(tools))) for m, tools in llm.tool_calls]
    return sent


def carries(messages: list[Message], message: str) -> bool:
    """The prompt carries the user's message: as a chat message, or in a template's section."""
    if Message("user", message) in messages:
        return True
    last = messages[-1].content
    return f"{FOLLOW_UP} {message}" in last or (f"{QUESTION} {message}" in last)


def conversation(memory: ChatMemory, sizes: list[int]) -> None:
    for i, size in enumerate(sizes):
        memory.put(Message("user", f"earlier question {i}: " + words(size // 2, "why")))
        memory.put(Message("assistant", f"earlier answer {i}: " + words(size, "because")))


@settings(max_examples=80, deadline=None)
@given(
    mode=st.sampled_from(MODES),
    window=st.integers(512, 16_384),
    output_share=st.sampled_from([16, 8, 4]),
    top_k=st.integers(1, 30),
    passage=st.sampled_from([20, 150, 600]),
    memory_limit=st.integers(64, 8_000),
    history=st.lists(st.sampled_from([10, 200, 1_500]), max_size=5),
    message_tokens_=st.sampled_from([3, 60, 400]),
    tool_tokens=st.sampled_from([5, 400, 3_000]),
    steps=st.integers(0, 5),
    calls_per_round=st.integers(1, 3),
    response_mode=st.sampled_from(["compact", "refine", "tree_summarize", "simple_summarize",
                                   "accumulate"]),
)
def test_every_prompt_carries_the_message_and_fits_the_window(
    mode, window, output_share, top_k, passage, memory_limit, history, message_tokens_,
    tool_tokens, steps, calls_per_round, response_mode,
):
    num_output = window // output_share
    message = "Q: " + words(message_tokens_, "budget")
    llm = FakeLLM(
        default=scripted(message, steps=steps, tool_tokens=tool_tokens),
        context_window=window, num_output=num_output,
        tool_replies=tool_rounds(message, steps, calls_per_round),
    )
    memory = ChatMemory(token_limit=memory_limit)
    conversation(memory, history)
    engine = chat_engine_from_index(
        Passages(passage), chat_mode="best" if mode == "function_calling" else mode, llm=llm,
        similarity_top_k=top_k, system_prompt=SYSTEM_PROMPT, response_mode=response_mode,
    )
    trace = Trace()
    try:
        reply = engine.chat(message, memory, trace=trace)
        text = reply.text
    except PromptTooLongError as error:
        # Only when the message and the fixed instructions alone leave too little room.
        assert count_tokens(message) + 64 > (window - num_output) // 2, error
        assert f"context_window ({window:,})" in str(error)
        return
    assert text.strip()
    sent = prompts_sent(llm)
    assert sent, "no prompt was sent"
    for messages, tokens in sent:
        assert tokens <= window - num_output
        assert carries(messages, message), [m.content[:80] for m in messages]
        condense = f"{FOLLOW_UP} " in messages[-1].content
        inside_tool = mode in ("react", "function_calling") and QUESTION in messages[-1].content
        if not (condense or inside_tool):
            assert messages[0].content.startswith(SYSTEM_PROMPT)  # never dropped either


# ---- the regressions of issue 9, one by one --------------------------------------------------


@pytest.mark.parametrize("mode", ["context", "condense_plus_context"])
def test_context_modes_with_the_default_memory_and_twenty_passages_keep_the_question(mode):
    llm = FakeLLM(context_window=8192, num_output=256)
    engine = chat_engine_from_index(Passages(400), chat_mode=mode, llm=llm,
                                    similarity_top_k=20)
    memory = ChatMemory()  # the default 3,000-token limit
    conversation(memory, [200, 200])
    trace = Trace()
    _ = engine.chat("Which passage mentions ipsum first?", memory, trace=trace).text
    prompt = llm.calls[-1]
    assert prompt[-1] == Message("user", "Which passage mentions ipsum first?")
    assert prompt[-2].content.startswith("earlier answer 1:")  # history still fits beside them
    assert tokens_of(prompt) <= 8192 - 256
    assert "passages:" in " ".join(trace.notes["prompt_budget"])  # what was left out is said


def dump(topic: str) -> str:
    """Everything known about a topic."""
    return words(3_000, "fact")


def test_react_with_big_tool_outputs_stays_in_the_window_at_every_step():
    # five different calls: the same call twice is not run again (``agent.task.earlier_call``)
    actions = [f'Thought: more\nAction: dump\nAction Input: {{"topic": "x{n}"}}' for n in range(5)]
    llm = FakeLLM(actions + ["Thought: done\nAnswer: it is big"],
                  context_window=4096, num_output=512)
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(dump)], llm=llm)
    trace = Trace()
    assert agent.chat("tell me about x", ChatMemory(), trace=trace).text == "it is big"
    assert len(llm.calls) == 6
    for prompt in llm.calls:
        assert tokens_of(prompt) <= 4096 - 512
        assert Message("user", "tell me about x") in prompt
    last = llm.calls[-1]
    observations = [m.content for m in last if m.content.startswith("Observation:")]
    assert observations[-1].endswith("more tokens cut to fit the context window]")
    assert len(observations[-1]) > len(observations[0])  # the newest result gets the most room
    notes = " ".join(trace.notes["prompt_budget"])
    assert "react step 6:" in notes and "summarised to fit" in notes


def test_function_calling_clips_tool_outputs_to_their_share():
    call = Message("assistant", "", tool_calls=[
        ToolCall("c1", "dump", '{"topic": "x"}'), ToolCall("c2", "dump", '{"topic": "y"}')])
    llm = FakeLLM(tool_replies=[call, call, Message("assistant", "done")],
                  context_window=4096, num_output=512)
    agent = FunctionCallingAgent.from_tools([FunctionTool.from_defaults(dump)], llm=llm)
    trace = Trace()
    assert agent.chat("tell me about x and y", ChatMemory(), trace=trace).text == "done"
    for messages, tokens in prompts_sent(llm):
        assert tokens <= 4096 - 512
        assert Message("user", "tell me about x and y") in messages
    second = llm.tool_calls[1][0]
    results = [m for m in second if m.role == "tool"]
    assert [m.tool_call_id for m in results] == ["c1", "c2"]  # every call keeps its result
    sizes = [message_tokens(m) for m in results]
    assert max(sizes) - min(sizes) <= 8  # two equal outputs get equal shares
    assert all(m.content.endswith("cut to fit the context window]") for m in results)
    assert "tools step 2: step 1: tool output clipped" in trace.notes["prompt_budget"][0]


def test_condense_question_honours_the_system_prompt():
    llm = FakeLLM(["Reyes.", "Who wrote the report?", "It was Dana Reyes."])
    engine = chat_engine_from_index(Passages(20), chat_mode="condense_question", llm=llm,
                                    system_prompt="Always answer in French.")
    memory = ChatMemory()
    _ = engine.chat("Who wrote it?", memory).text
    _ = engine.chat("And who was it?", memory).text
    answers = [call for call in llm.calls if QUESTION in call[-1].content]
    assert len(answers) == 2
    assert all(call[0].content.startswith("Always answer in French.") for call in answers)


def test_a_system_prompt_needs_a_query_engine_with_a_synthesizer():
    class Bare:
        def query(self, question, *, trace=None): ...

    from ragcore.chat import CondenseQuestionChatEngine

    with pytest.raises(ConfigError, match="system_prompt needs a query engine"):
        CondenseQuestionChatEngine(Bare(), llm=FakeLLM(), system_prompt="Be brief.")


@pytest.mark.parametrize("mode", ["simple", "context", "condense_question", "best"])
def test_an_empty_reply_becomes_a_visible_notice(mode):
    llm = FakeLLM(default="  \n", tool_replies=[Message("assistant", "")])
    engine = chat_engine_from_index(Passages(20), chat_mode=mode, llm=llm)
    memory = ChatMemory()
    trace = Trace()
    response = engine.chat("hello?", memory, trace=trace)
    assert response.text == EMPTY_REPLY
    assert "empty" in trace.notes["empty_reply"]
    assert memory.messages[-1] == Message("assistant", EMPTY_REPLY)


def test_a_query_answer_that_is_empty_says_so():
    from ragcore.query import QueryEngine

    trace = Trace()
    response = QueryEngine(_Retriever(2, 10), Synthesizer(FakeLLM(default=""))).query(
        "what?", trace=trace)
    assert response.text == EMPTY_REPLY and "empty_reply" in trace.notes


@pytest.mark.parametrize(
    "rewrite, why",
    [
        ("", "empty"),
        ("Standalone question:", "empty"),
        ("Conversation:\nuser: Who wrote the report?\nFollow-up question: and when?", "repeated"),
        ("Echo: Conversation: user: hi Follow-up question: and when?", "repeated"),
        (words(300, "ramble"), "far longer"),
    ],
)
def test_an_untrustworthy_rewrite_falls_back_to_the_message(rewrite, why):
    llm = FakeLLM(["Dana Reyes.", rewrite, "In 2021."])
    engine = chat_engine_from_index(Passages(20), chat_mode="condense_plus_context", llm=llm)
    memory = ChatMemory()
    _ = engine.chat("Who wrote the report?", memory).text
    trace = Trace()
    _ = engine.chat("and when?", memory, trace=trace).text
    assert trace.notes["condensed_question"] == "and when?"
    assert why in trace.notes["condense_rejected"]


def test_a_good_rewrite_is_used():
    llm = FakeLLM(["Dana Reyes.", "When did Dana Reyes write the annual report?", "In 2021."])
    engine = chat_engine_from_index(Passages(20), chat_mode="condense_plus_context", llm=llm)
    memory = ChatMemory()
    _ = engine.chat("Who wrote the report?", memory).text
    trace = Trace()
    _ = engine.chat("and when?", memory, trace=trace).text
    assert trace.notes["condensed_question"] == "When did Dana Reyes write the annual report?"
    assert "condense_rejected" not in trace.notes


@pytest.mark.parametrize("mode", MODES)
def test_a_message_too_long_for_the_window_says_what_to_change(mode):
    llm = FakeLLM(context_window=1024, num_output=256)
    engine = chat_engine_from_index(
        Passages(20), chat_mode="best" if mode == "function_calling" else mode, llm=llm)
    memory = ChatMemory()
    with pytest.raises(PromptTooLongError) as caught:
        _ = engine.chat(words(900, "long"), memory).text
    text = str(caught.value)
    assert "context_window (1,024)" in text and "256 tokens reserved for the reply" in text
    assert re.search(r"message \d[\d,]*", text) or "question" in text
    assert "Shorten the message" in text and "lower num_output" in text
    assert llm.calls == [] and llm.tool_calls == []  # nothing over budget was ever sent


# ---- the rule's pieces ----------------------------------------------------------------------


def test_a_part_gets_its_share_or_what_later_parts_leave():
    room = Room(1000)
    assert room.offer(900, share=0.5, later=800) == 500  # its share: the history wants the rest
    assert room.offer(900, share=0.5, later=100) == 900  # the history needs little
    assert room.offer(300, share=0.5, later=5_000) == 300  # never more than it needs
    room.take(600)
    assert room.offer(900, later=0) == 400


def test_clip_keeps_the_start_and_says_how_much_was_cut():
    text = "first words matter. " + words(500, "filler")
    clipped = clip(text, 60)
    assert clipped.startswith("first words matter.")
    assert count_tokens(clipped) <= 60
    assert re.search(r"\[\.\.\. \d+ more tokens cut to fit the context window\]$", clipped)
    assert clip("short", 60) == "short"


def react_step(i: int, size: int) -> list[Message]:
    return [Message("assistant", f"Thought: step {i}\nAction: dump\nAction Input: {{}}"),
            Message("user", f"Observation: result {i} " + words(size, "fact"))]


def test_steps_newest_whole_next_clipped_older_summarised_oldest_left_out():
    steps = [react_step(i, 400) for i in range(1, 21)]
    scratchpad = [m for step in steps for m in step]
    room = Room(1400)
    fitted = fit_steps(scratchpad, 1400, room)
    assert 1400 - 60 < tokens_of(fitted) <= 1400
    assert fitted[-4:] == steps[-2] + steps[-1]  # the newest steps whole
    assert fitted[-6] == steps[-3][0]  # step 18: its action, and its result clipped to fit
    assert fitted[-5].content.startswith("Observation: result 18 fact")
    assert fitted[-5].content.endswith("cut to fit the context window]")
    assert 100 < message_tokens(fitted[-5]) < 400
    assert fitted[0].content.startswith("[My first")  # the left-out steps are named
    assert "they called dump" in fitted[0].content
    summaries = [m for m in fitted[1:-6] if m.role == "user"]
    assert len(summaries) >= 3 and all(count_tokens(m.content) <= 40 for m in summaries)
    assert all(m.content.startswith("Observation: result") for m in summaries)
    first_summarised = int(summaries[0].content.split()[2])
    assert [int(m.content.split()[2]) for m in summaries] == list(range(first_summarised, 18))
    notes = " ".join(room.notes)
    assert "step 18: tool output clipped" in notes
    assert f"steps {first_summarised}-17 summarised" in notes
    assert f"steps 1-{first_summarised - 1} left out to fit" in notes


def test_steps_that_fit_are_untouched():
    scratchpad = [m for i in range(3) for m in react_step(i, 20)]
    room = Room(10_000)
    assert fit_steps(scratchpad, 10_000, room) == scratchpad and room.notes == []


@settings(max_examples=150, deadline=None)
@given(
    sizes=st.lists(st.sampled_from([1, 30, 300, 2_000]), min_size=1, max_size=6),
    calls=st.integers(1, 3),
    thought=st.sampled_from([0, 20, 1_000]),
    budget=st.integers(0, 4_000),
)
def test_fitted_steps_fit_and_keep_every_call_with_its_results(sizes, calls, thought, budget):
    scratchpad = []
    for r, size in enumerate(sizes):
        ids = [f"c{r}_{c}" for c in range(calls)]
        scratchpad.append(Message("assistant", words(thought, "hmm"), tool_calls=[
            ToolCall(i, "dump", "{}") for i in ids]))
        scratchpad += [Message("tool", words(size, "fact"), tool_call_id=i) for i in ids]
    room = Room(budget)
    fitted = fit_steps(scratchpad, budget, room)
    assert tokens_of(fitted) <= max(budget, 0)
    assert fitted == scratchpad or room.notes  # nothing is cut without a note
    if budget >= 400:  # room for at least the newest step's summary
        assert fitted and fitted[-1].role == "tool"
    for i, message in enumerate(fitted):
        if message.tool_calls:
            answered = [m.tool_call_id for m in fitted[i + 1 : i + 1 + calls]]
            assert answered == [c.id for c in message.tool_calls]
        if message.role == "tool":
            assert fitted[i - 1].tool_calls or fitted[i - 1].role == "tool"


def test_the_error_names_each_fixed_part():
    with pytest.raises(PromptTooLongError) as caught:
        PromptBudget(1000, 200).room({"system prompt": 300, "message": 600}, prompt="the chat")
    assert str(caught.value).startswith(
        "the chat does not fit: its fixed parts take 900 tokens (system prompt 300, message 600)"
    )
    assert isinstance(caught.value, ConfigError)


# ---- real wire shapes (loopback server) ---------------------------------------------------


def wire_tokens(message: dict) -> int:
    calls = message.get("tool_calls") or []
    return (count_tokens(message.get("content") or "") + 4 + sum(
        count_tokens(c["function"]["name"]) + count_tokens(c["function"]["arguments"])
        for c in calls))


def test_ollama_context_chat_sends_the_question_within_the_window(loopback):  # noqa: F811
    loopback.queue(Reply(text="Passage 0 does."))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url, context_window=8192,
                    num_output=256)
    engine = ContextChatEngine(_Retriever(20, 300), llm=llm)
    memory = ChatMemory()
    conversation(memory, [300, 300])
    assert engine.chat("Which passage says ipsum?", memory).text == "Passage 0 does."
    sent = loopback.requests_to("/api/chat")[-1].json["messages"]
    assert sent[-1] == {"role": "user", "content": "Which passage says ipsum?"}
    assert sum(map(wire_tokens, sent)) <= 8192 - 256


def test_ollama_condense_echo_is_not_used_as_the_question(loopback):  # noqa: F811
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url)
    engine = chat_engine_from_index(Passages(20), chat_mode="condense_plus_context", llm=llm)
    memory = ChatMemory()
    _ = engine.chat("Who wrote the report?", memory).text  # the server echoes: a reply
    trace = Trace()
    _ = engine.chat("and when?", memory, trace=trace).text  # the echo of the condense prompt
    assert trace.notes["condensed_question"] == "and when?"
    assert "repeated the prompt" in trace.notes["condense_rejected"]


def test_ollama_empty_reply_is_a_notice(loopback):  # noqa: F811
    loopback.queue(Reply(text="", chunks=[]))
    llm = OllamaLLM(model="llama3.1", base_url=loopback.ollama_url)
    engine = chat_engine_from_index(Passages(20), chat_mode="simple", llm=llm)
    assert engine.chat("hi", ChatMemory()).text == EMPTY_REPLY


def test_openai_tool_results_are_clipped_on_the_wire(loopback):  # noqa: F811
    loopback.queue(
        Reply(tool_calls=[("dump", {"topic": "x"}), ("dump", {"topic": "y"})]),
        Reply(tool_calls=[("dump", {"topic": "z"})]),
        Reply(text="Done."),
    )
    llm = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url, context_window=4096,
                    num_output=512)
    agent = FunctionCallingAgent.from_tools([FunctionTool.from_defaults(dump)], llm=llm)
    assert agent.chat("summarise x, y and z", ChatMemory()).text == "Done."
    for request in loopback.requests_to("/v1/chat/completions"):
        sent = request.json["messages"]
        assert {"role": "user", "content": "summarise x, y and z"} in sent
        tools = count_tokens(json.dumps(request.json["tools"]))
        assert sum(map(wire_tokens, sent)) + tools <= 4096 - 512
        for i, message in enumerate(sent):  # every call still has its result, in order
            for call in message.get("tool_calls") or []:
                assert call["id"] in [m.get("tool_call_id") for m in sent[i + 1 :]]
