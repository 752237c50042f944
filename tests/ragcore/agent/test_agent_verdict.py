"""An agent's final answer is judged against what its tools showed it (the trace's
``agent_verdict``); an answer no tool backed is "unobserved"."""

from __future__ import annotations

from ragcore.agent import ReActAgent
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.tools import FunctionTool
from ragcore.trace import Trace


def staff_count() -> str:
    """How many people work at the lab."""
    return "The lab employs 412 people in two buildings."


def run(replies: list[str]) -> dict:
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(staff_count)],
                                  llm=FakeLLM(replies=replies))
    trace = Trace()
    agent.chat("How many people work at the lab?", ChatMemory(), trace=trace).text
    return trace.notes["agent_verdict"]


def test_an_answer_its_tool_showed_is_supported():
    verdict = run(['Thought: look it up\nAction: staff_count\nAction Input: {}',
                   "Thought: done\nAnswer: The lab employs 412 people."])
    assert verdict["label"] == "supported"


def test_an_answer_no_tool_showed_is_caught():
    assert run(["Thought: done\nAnswer: The lab employs 3,000 people."])["label"] == "unobserved"
    verdict = run(['Thought: look it up\nAction: staff_count\nAction Input: {}',
                   "Thought: done\nAnswer: The lab employs 3,000 people."])
    assert verdict["label"] == "unsupported"
