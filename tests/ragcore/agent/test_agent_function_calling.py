"""The function-calling agent: several tool calls per turn, tool messages with their call ids,
errors sent back as results, the step limit - scripted with FakeLLM and against the loopback
OpenAI-compatible server with real ``tool_calls`` response shapes."""

from __future__ import annotations

import json

import pytest
from support.loopback import Reply, loopback  # noqa: F401

from ragcore.agent import FunctionCallingAgent
from ragcore.errors import ConfigError
from ragcore.llms.fake import FakeLLM
from ragcore.llms.openai import OpenAILLM
from ragcore.memory import ChatMemory
from ragcore.tokens import count_tokens
from ragcore.tools import FunctionTool
from ragcore.trace import Trace
from ragcore.types import Message, ToolCall


def int_mult(a: int, b: int) -> int:
    """Apply a * b and return the result as int."""
    return a * b


def int_add(a: int, b: int) -> int:
    """Apply a + b and return the result as int."""
    return a + b


TOOLS = [FunctionTool.from_defaults(int_mult), FunctionTool.from_defaults(int_add)]


def calls(*specs: tuple[str, str, str]) -> Message:
    return Message("assistant", "", tool_calls=[ToolCall(*spec) for spec in specs])


def test_every_tool_call_runs_and_results_go_back_with_their_ids():
    llm = FakeLLM(tool_replies=[
        calls(("c1", "int_mult", '{"a": 12, "b": 34}'), ("c2", "int_add", '{"a": 1, "b": 2}')),
        Message("assistant", "12*34 is 408 and 1+2 is 3."),
    ])
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm)
    memory = ChatMemory()
    response = agent.chat("What are 12*34 and 1+2?", memory)
    assert response.text == "12*34 is 408 and 1+2 is 3."
    second_messages, offered = llm.tool_calls[1]
    assert [t["function"]["name"] for t in offered] == ["int_mult", "int_add"]
    assert second_messages[-3].tool_calls[0].id == "c1"
    assert second_messages[-2] == Message("tool", "408", tool_call_id="c1", name="int_mult")
    assert second_messages[-1] == Message("tool", "3", tool_call_id="c2", name="int_add")
    assert [m.role for m in memory.messages] == ["user", "assistant"]
    assert [o.content for o in response.tool_outputs] == ["408", "3"]
    assert [s.name for s in response.trace.stages] == [
        "llm: tools step 1", "tool: int_mult", "tool: int_add", "llm: tools step 2"
    ]
    assert response.trace.notes["reasoning"][0]["action"] == "int_mult"


def test_bad_calls_are_answered_with_errors_the_model_can_fix():
    llm = FakeLLM(tool_replies=[
        calls(("c1", "int_div", '{"a": 1}'), ("c2", "int_add", '{"a": "x", "b": 2}'),
              ("c3", "int_add", "not json at all")),
        Message("assistant", "Sorry."),
    ])
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm)
    assert agent.chat("?", ChatMemory()).text == "Sorry."
    results = [m.content for m in llm.tool_calls[1][0] if m.role == "tool"]
    assert "no tool named 'int_div'" in results[0]
    assert "bad arguments for int_add" in results[1]
    assert "must be a JSON object" in results[2]


def test_step_limit_ends_with_the_best_answer_so_far():
    looping = calls(("c1", "int_add", '{"a": 2, "b": 2}'))
    llm = FakeLLM(tool_replies=[looping] * 5)
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm, max_iterations=2)
    response = agent.chat("loop", ChatMemory())
    assert "limit of 2 reasoning steps" in response.text and response.text.endswith("4")
    assert len(llm.tool_calls) == 2


def test_llms_without_tool_calls_are_refused_with_a_hint():
    class TextOnly:
        model, context_window, num_output = "text", 4096, 256

        def stream(self, messages):
            yield "hi"

    with pytest.raises(ConfigError, match="ReActAgent"):
        FunctionCallingAgent.from_tools(TOOLS, llm=TextOnly())


def test_against_the_loopback_openai_server(loopback):  # noqa: F811
    loopback.queue(
        Reply(tool_calls=[("int_mult", {"a": 12, "b": 34}), ("int_add", '{"a": 408, "b": 1}')]),
        Reply(text="The answer is 409."),
    )
    llm = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url, api_key="sk-test")
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm)
    trace = Trace()
    response = agent.chat("What is 12*34+1?", ChatMemory(), trace=trace)
    assert response.text == "The answer is 409."
    first, second = [r.json for r in loopback.requests_to("/v1/chat/completions")]
    assert first["stream"] is False
    assert [t["function"]["name"] for t in first["tools"]] == ["int_mult", "int_add"]
    assert first["tools"][0]["function"]["parameters"]["required"] == ["a", "b"]
    sent = second["messages"]
    assert sent[-3]["role"] == "assistant" and len(sent[-3]["tool_calls"]) == 2
    assert sent[-2] == {"role": "tool", "tool_call_id": "call_1", "content": "408"}
    assert sent[-1]["tool_call_id"] == "call_2" and sent[-1]["content"] == "409"
    assert json.loads(sent[-3]["tool_calls"][0]["function"]["arguments"]) == {"a": 12, "b": 34}
    assert [c.purpose for c in trace.llm_calls] == ["tools step 1", "tools step 2"]
    assert [s.name for s in trace.stages if s.name.startswith("llm: ")] == [
        "llm: tools step 1", "llm: tools step 2"]
    first_call, second_call = trace.llm_calls
    assert first_call.model == llm.model and first_call.reply.count("[tool call int_") == 2
    assert second_call.reply == "The answer is 409."
    # tokens_in counts a prompt the way the memory budgets it: text, tool calls, role markup.
    for call in trace.llm_calls:
        assert call.tokens_in == sum(
            count_tokens(m.content) + 4
            + sum(count_tokens(c.name) + count_tokens(c.arguments) for c in m.tool_calls)
            for m in call.messages
        )
    assert second_call.tokens_in > first_call.tokens_in


def test_a_server_that_rejects_tools_gets_an_error_naming_the_alternatives(loopback):  # noqa: F811
    from ragcore.errors import LLMStatusError

    loopback.queue(Reply(status=400, error="tools are not supported by this model"))
    llm = OpenAILLM(model="gpt-4o-mini", base_url=loopback.openai_url, max_retries=0)
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm)
    with pytest.raises(LLMStatusError) as caught:
        _ = agent.chat("hi", ChatMemory()).text
    assert caught.value.status_code == 400
    assert "chat_mode='react'" in str(caught.value) and "not supported" in str(caught.value)


def test_rounds_can_be_driven_one_at_a_time():
    llm = FakeLLM(tool_replies=[
        calls(("c1", "int_mult", '{"a": 2, "b": 3}'), ("c2", "int_add", '{"a": 2, "b": 3}')),
    ])
    agent = FunctionCallingAgent.from_tools(TOOLS, llm=llm)
    memory = ChatMemory()
    task = agent.create_task("2*3 and 2+3?", memory)
    steps = agent.run_step(task)
    assert [(s.action, s.observation) for s in steps] == [("int_mult", "6"), ("int_add", "5")]
    assert not task.done
    response = agent.finalize(task)  # stop here: the answer is the best found so far
    assert response.text.endswith("5")
    assert memory.messages[-1].content == response.text
