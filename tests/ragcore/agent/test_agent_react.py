"""The ReAct agent: step-by-step driving, streaming only the answer, errors as observations,
the step limit, memory, trace and sources - all with the scripted FakeLLM."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragcore.agent import ReActAgent
from ragcore.errors import ConfigError, LLMConnectionError
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.prompts import message_tokens
from ragcore.synthesis import Response
from ragcore.tools import FunctionTool, QueryEngineTool
from ragcore.trace import Trace
from ragcore.types import Message, Node, ScoredNode

MARKUP = ("Thought", "Action", "Observation", "Answer:")


def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


def explode(reason: str) -> str:
    """A tool that always fails."""
    raise ValueError(f"cannot handle {reason}")


def action(tool: str, arguments: str) -> str:
    return f"Thought: I should use {tool}.\nAction: {tool}\nAction Input: {arguments}"


def agent_with(replies, *, max_iterations=10, chunk_size=7, tools=None, **llm_kwargs):
    llm = FakeLLM(replies, chunk_size=chunk_size, **llm_kwargs)
    tools = tools if tools is not None else [FunctionTool.from_defaults(multiply)]
    return ReActAgent.from_tools(tools, llm=llm, max_iterations=max_iterations), llm


def test_step_by_step_exposes_action_observation_and_answer():
    agent, llm = agent_with(
        [action("multiply", '{"a": 6, "b": 7}'), "Thought: done\nAnswer: It is 42."]
    )
    memory = ChatMemory()
    task = agent.create_task("What is 6 times 7?", memory)
    first = agent.run_step(task)
    assert (first.action, first.action_input, first.observation) == (
        "multiply", {"a": 6, "b": 7}, "42"
    )
    assert not first.is_last and not task.done
    second = agent.run_step(task)
    assert second.is_last and second.answer == "It is 42."
    response = agent.finalize(task)
    assert response.text == "It is 42."
    assert [m.content for m in memory.messages] == ["What is 6 times 7?", "It is 42."]
    # the second prompt carries the first step and its observation
    assert llm.calls[1][-2] == Message(
        "assistant",
        'Thought: I should use multiply.\nAction: multiply\nAction Input: {"a": 6, "b": 7}',
    )
    assert llm.calls[1][-1] == Message("user", "Observation: 42")


def test_system_prompt_describes_tools_with_schemas_and_the_format():
    agent, llm = agent_with(["Answer: hi"])
    _ = agent.chat("hello", ChatMemory()).text
    system = llm.calls[0][0]
    assert system.role == "system"
    for expected in ("> Tool: multiply", '"a": {"type": "integer"}', "Action Input:",
                     "Observation:", "Answer:", "one of [multiply]"):
        assert expected in system.content
    assert llm.calls[0][-1] == Message("user", "hello")


def test_streamed_text_is_only_the_final_answer():
    agent, _ = agent_with(
        [action("multiply", '{"a": 2, "b": 21}'),
         "Thought: I can answer without using more tools.\nAnswer: The product is 42."],
        chunk_size=3,  # markers arrive split across chunks
    )
    response = agent.chat("2*21?", ChatMemory())
    chunks = list(response)
    assert "".join(chunks) == "The product is 42."
    assert len(chunks) > 1  # streamed, not delivered in one piece
    assert not any(word in "".join(chunks) for word in MARKUP)


def test_a_model_running_on_past_its_answer_streams_only_the_answer():
    agent, _ = agent_with(["Thought: ok\nAnswer: It is 4.\nObservation: (invented)\nThought: more"],
                          chunk_size=3)
    memory = ChatMemory()
    assert "".join(agent.chat("2+2?", memory)) == "It is 4."
    assert memory.messages[-1].content == "It is 4."


def test_a_reply_inventing_the_tool_result_is_not_streamed_as_the_answer():
    agent, llm = agent_with(["Observation: the tool says 99.", "Answer: It is 42."], chunk_size=4)
    assert "".join(agent.chat("6 times 7?", ChatMemory())) == "It is 42."
    assert len(llm.calls) == 2


def test_an_answer_without_the_marker_is_delivered_whole():
    agent, _ = agent_with(["Paris is the capital of France."])
    assert agent.chat("capital?", ChatMemory()).text == "Paris is the capital of France."


@pytest.mark.parametrize(
    "bad_reply, expected_in_observation",
    [
        ("Thought: hmm, let me think", "no 'Action:' or 'Answer:' line"),
        (action("divide", '{"a": 1}'), "no tool named 'divide'. Use one of: multiply, explode"),
        (action("multiply", '{"a": "six", "b": 7}'), "bad arguments for multiply"),
        (action("explode", '{"reason": "this"}'), "ValueError: cannot handle this"),
        (action("multiply", "six and seven"), "must be a JSON object"),
        ("Observation: the tool says 99.", "began with 'Observation:', which only the tool"),
    ],
)
def test_mistakes_become_observations_and_the_loop_goes_on(bad_reply, expected_in_observation):
    tools = [FunctionTool.from_defaults(multiply), FunctionTool.from_defaults(explode)]
    agent, llm = agent_with([bad_reply, "Answer: recovered"], tools=tools)
    response = agent.chat("do it", ChatMemory())
    assert response.text == "recovered"
    observation = llm.calls[1][-1]
    assert observation.role == "user" and observation.content.startswith("Observation: Error")
    assert expected_in_observation in observation.content


def test_plain_text_input_is_bound_to_a_one_parameter_tool():
    tool = FunctionTool.from_defaults(explode)
    agent, llm = agent_with([action("explode", "the input"), "Answer: ok"], tools=[tool])
    _ = agent.chat("go", ChatMemory()).text
    assert "cannot handle the input" in llm.calls[1][-1].content


def test_step_limit_ends_with_the_best_answer_so_far_and_says_so():
    # (the second call is the same as the first: not run again, so it does not end the turn yet)
    agent, llm = agent_with([], max_iterations=2, default=action("multiply", '{"a": 3, "b": 5}'))
    memory = ChatMemory()
    response = agent.chat("keep going", memory)
    text = response.text
    assert len(llm.calls) == 2
    assert "limit of 2 reasoning steps" in text and text.rstrip().endswith("15")
    assert response.trace.notes["stopped"] == "reached max_iterations (2)"
    assert memory.messages[-1] == Message("assistant", text)


def test_step_limit_without_any_result_says_nothing_was_found():
    agent, _ = agent_with([], max_iterations=2, default="Thought: still thinking")
    text = agent.chat("?", ChatMemory()).text
    assert "without finding an answer" in text and "max_iterations" in text


def test_trace_records_reasoning_tool_stages_and_llm_calls():
    agent, _ = agent_with([action("multiply", '{"a": 2, "b": 2}'), "Thought: ok\nAnswer: 4"])
    trace = Trace()
    response = agent.chat("2*2", ChatMemory(), trace=trace)
    _ = response.text
    assert response.trace is trace
    assert trace.notes["reasoning"] == [
        {"thought": "I should use multiply.", "action": "multiply",
         "action_input": {"a": 2, "b": 2}, "observation": "4"},
        {"thought": "ok", "answer": "4"},
    ]
    assert [s.name for s in trace.stages] == ["llm: react step 1", "tool: multiply",
                                              "llm: react step 2"]
    assert [c.purpose for c in trace.llm_calls] == ["react step 1", "react step 2"]


class FakeQueryEngine:
    def __init__(self):
        self.questions = []

    def query(self, question, *, trace=None):
        self.questions.append(question)
        node = ScoredNode(Node("The report has 12 pages.", node_id="n1",
                               metadata={"file_name": "report.txt"}), 0.8)
        return Response.from_text("The report has 12 pages.", source_nodes=[node])


def test_query_engine_tool_sources_reach_the_response():
    engine = FakeQueryEngine()
    agent, _ = agent_with(
        [action("search_documents", '{"input": "report pages"}'), "Answer: 12 pages."],
        tools=[QueryEngineTool(engine)],
    )
    response = agent.chat("How long is the report?", ChatMemory())
    assert response.text == "12 pages."
    assert engine.questions == ["report pages"]
    assert [s.node.node_id for s in response.source_nodes] == ["n1"]
    assert response.sources()[0].file == "report.txt"
    assert response.tool_outputs[0].content == "The report has 12 pages."


def test_history_from_memory_is_in_the_next_turn_prompt():
    agent, llm = agent_with(["Answer: first", "Answer: second"])
    memory = ChatMemory()
    _ = agent.chat("one", memory).text
    _ = agent.chat("two", memory).text
    assert [m.content for m in llm.calls[1][1:]] == ["one", "first", "two"]


def test_an_llm_failure_leaves_no_half_answer_and_a_retry_does_not_duplicate():
    def down(messages):
        raise LLMConnectionError("http://127.0.0.1:1 refused the connection")

    agent, _ = agent_with([down, "Answer: back"])
    memory = ChatMemory()
    response = agent.chat("hello", memory)
    with pytest.raises(LLMConnectionError):
        _ = response.text
    with pytest.raises(LLMConnectionError):  # reading again repeats the error
        list(response)
    assert [m.content for m in memory.messages] == ["hello"]
    assert agent.chat("hello", memory).text == "back"
    assert [m.content for m in memory.messages] == ["hello", "back"]


def test_finished_tasks_and_bad_options_are_refused():
    agent, _ = agent_with(["Answer: x"])
    task = agent.create_task("q", ChatMemory())
    agent.run_step(task)
    with pytest.raises(ConfigError, match="finalize"):
        agent.run_step(task)
    with pytest.raises(ConfigError, match="max_iterations"):
        ReActAgent.from_tools([], llm=FakeLLM(), max_iterations=0)
    with pytest.raises(ConfigError, match="not a tool"):
        ReActAgent.from_tools([multiply], llm=FakeLLM())
    with pytest.raises(ConfigError, match="empty"):
        agent.chat("  ", ChatMemory())


def test_finalize_early_gives_what_was_found():
    agent, _ = agent_with([action("multiply", '{"a": 4, "b": 4}')])
    memory = ChatMemory()
    task = agent.create_task("4*4", memory)
    agent.run_step(task)
    response = agent.finalize(task)
    assert response.text.rstrip().endswith("16")
    assert memory.messages[-1].content == response.text


@settings(max_examples=60, deadline=None)
@given(
    replies=st.lists(
        st.one_of(
            st.text(max_size=120),
            st.sampled_from([
                action("multiply", '{"a": 1, "b": 2}'), action("explode", '{"reason": "x"}'),
                action("nope", "{}"), action("multiply", "{'a': 1"), "Answer: ok", "Answer:",
            ]),
        ),
        min_size=1,
        max_size=4,
    )
)
def test_no_model_output_makes_the_agent_raise(replies):
    tools = [FunctionTool.from_defaults(multiply), FunctionTool.from_defaults(explode)]
    agent, _ = agent_with(replies, max_iterations=3, tools=tools, default="Thought: ...")
    memory = ChatMemory()
    response = agent.chat("question", memory)
    text = response.text
    assert isinstance(text, str)
    assert len(response.trace.notes["reasoning"]) <= 4
    # Whatever the model wrote, the turn ends with a non-empty answer that goes into the memory.
    assert response.done and text.strip()
    assert memory.messages[-1] == Message("assistant", text)


def test_the_step_machine_runs_without_any_llm_call():
    llm = FakeLLM(default="never used")
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(multiply)], llm=llm,
                                  max_iterations=2)
    memory = ChatMemory()
    task = agent.create_task("3*3?", memory)
    prompt = agent.next_prompt(task)
    assert prompt[0].role == "system" and prompt[-1] == Message("user", "3*3?")
    step = agent.apply_reply(task, action("multiply", '{"a": 3, "b": 3}'))
    assert step.observation == "9"
    assert agent.next_prompt(task)[-1] == Message("user", "Observation: 9")
    agent.apply_reply(task, "Thought: hmm")  # unparseable: becomes an observation
    assert agent.next_prompt(task) is None  # the step limit (2) is reached
    final = agent.apply_reply(task, None)
    assert final.is_last and final.answer.rstrip().endswith("9")
    assert agent.finalize(task).text == final.answer
    assert llm.calls == []


def test_a_long_observation_is_clipped_to_the_room_left_in_the_window():
    def dump(topic: str) -> str:
        """Everything about a topic."""
        return "fact " * 5000

    agent, llm = agent_with([action("dump", '{"topic": "x"}'), "Answer: done"],
                            tools=[FunctionTool.from_defaults(dump)],
                            context_window=2048, num_output=256)
    response = agent.chat("tell me", ChatMemory())
    assert response.text == "done"
    prompt = llm.calls[1]
    observation = prompt[-1].content
    assert observation.startswith("Observation: fact fact")
    assert observation.endswith("more tokens cut to fit the context window]")
    assert Message("user", "tell me") in prompt
    assert sum(map(message_tokens, prompt)) <= 2048 - 256
    assert sum(map(message_tokens, prompt)) > 2048 - 256 - 40  # the room is used, not wasted
    assert "react step 2: step 1: tool output clipped" in response.trace.notes["prompt_budget"][0]
    assert response.tool_outputs[0].content == "fact " * 5000  # the caller still gets it whole


def test_run_step_with_a_task_id_says_to_pass_the_task():
    agent = ReActAgent.from_tools([], llm=FakeLLM())
    task = agent.create_task("q", ChatMemory())
    with pytest.raises(ConfigError, match="pass the task object, not its id"):
        agent.run_step(task.task_id)


def fetch_page(url: str) -> str:
    """A tool whose output is far longer than any context window."""
    return "word " * 80_000  # 400k characters, 80k tokens


def _agent_reading_a_page(kind: str):
    """(agent, llm) where the model calls fetch_page once, then answers "done"."""
    from ragcore.agent import FunctionCallingAgent
    from ragcore.types import ToolCall

    tools = [FunctionTool.from_defaults(fetch_page)]
    if kind == "react":
        return agent_with([action("fetch_page", '{"url": "x"}'), "Answer: done"],
                          tools=tools, context_window=4096)
    call = Message("assistant", "", tool_calls=[ToolCall("c1", "fetch_page", '{"url": "x"}')])
    llm = FakeLLM(tool_replies=[call, Message("assistant", "done")], context_window=4096)
    return FunctionCallingAgent.from_tools(tools, llm=llm), llm


@pytest.mark.parametrize("kind", ["react", "function calling"])
def test_a_tool_output_longer_than_the_window_is_tokenized_once_not_at_every_fit(monkeypatch, kind):
    from ragcore import tokens

    real = tokens.get_tokenizer()
    encoded = [0]

    class Counting:
        def encode_ordinary(self, text):
            encoded[0] += len(text)
            return real.encode_ordinary(text)

        def decode(self, ids):
            return real.decode(ids)

    monkeypatch.setattr(tokens, "_load_cl100k", Counting)
    agent, llm = _agent_reading_a_page(kind)
    response = agent.chat("Read the page", ChatMemory())
    assert response.text == "done"
    assert response.tool_outputs[0].content == fetch_page("x")  # the step keeps it whole
    # The 400k characters were tokenized whole once; fitting the two prompts after it (about
    # ten counts each, which read it whole before) reads at most a window's worth each time.
    window_characters = 4096 * len("word ")
    beyond_one_pass = encoded[0] - len(fetch_page("x"))
    assert beyond_one_pass < 25 * window_characters, f"{encoded[0]:,} characters tokenized"


class StoppingLLM(FakeLLM):
    """A FakeLLM that, like the local and server backends, can end replies at stop strings."""

    def __init__(self, replies, **options):
        super().__init__(replies, **options)
        self.stop: list[str] = []

    def with_stop(self, stop):
        copy = StoppingLLM([], default=self.default)
        copy._replies, copy.calls, copy.stop = self._replies, self.calls, list(stop)
        return copy

    def stream(self, messages):
        text = "".join(super().stream(messages))
        for marker in self.stop:  # what a backend's stop does: the reply ends before it
            text = text.split(marker)[0]
        yield text


def test_a_model_that_can_stop_is_stopped_before_it_invents_the_observation():
    llm = StoppingLLM([action("multiply", '{"a": 6, "b": 7}') + "\nObservation: 41",
                       "Thought: done.\nAnswer: 42"])
    agent = ReActAgent([FunctionTool.from_defaults(multiply)], llm=llm)
    assert agent.chat("What is 6 times 7?", ChatMemory()).text == "42"
    assert agent.step_llm.stop == ["\nObservation:"]
    second_prompt = llm.calls[1][-1].content + "".join(m.content for m in llm.calls[1])
    assert "41" not in second_prompt and "42" in second_prompt  # the tool's result, not the model's
