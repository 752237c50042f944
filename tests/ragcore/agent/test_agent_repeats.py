"""An agent does not run the same tool call twice in one turn: the first repeat is told what the
tool answered, the next ends the turn with that answer (a small model otherwise loops to the
step limit asking the same search)."""

from __future__ import annotations

from ragcore.agent import ReActAgent
from ragcore.llms.fake import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.tools import FunctionTool
from ragcore.trace import Trace

CALLS: list[str] = []
SEARCH = 'Thought: search\nAction: lookup\nAction Input: {"topic": "GONOSUMDB"}'


def lookup(topic: str) -> str:
    """Look a topic up in the documents."""
    CALLS.append(topic)
    return "GONOSUMDB lists module paths whose checksums are not looked up."


def test_a_repeated_call_is_not_run_again_and_ends_with_what_it_found():
    CALLS.clear()
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)],
                                  llm=FakeLLM(replies=[SEARCH] * 10), max_iterations=10)
    trace = Trace()
    text = agent.chat("Which variable disables checksum lookups?", ChatMemory(),
                      trace=trace).text
    assert CALLS == ["GONOSUMDB"]
    assert "GONOSUMDB lists module paths" in text
    steps = trace.notes["reasoning"]
    assert len(steps) == 3 and "already called lookup" in steps[1]["observation"]
    assert "stopped" not in trace.notes  # not the step limit


def test_a_different_input_is_run():
    CALLS.clear()
    other = 'Thought: again\nAction: lookup\nAction Input: {"topic": "GOPRIVATE"}'
    agent = ReActAgent.from_tools([FunctionTool.from_defaults(lookup)],
                                  llm=FakeLLM(replies=[SEARCH, other, "Answer: done."]))
    agent.chat("Which variables?", ChatMemory()).text
    assert CALLS == ["GONOSUMDB", "GOPRIVATE"]
