"""An agent's progress is told at once and keeps moving while its model is silent
(ragcore.chat.agent_progress; issue 65: 38.7 s of a Stop button alone before its first step)."""

from __future__ import annotations

import time

from ragcore.agent import ReActAgent
from ragcore.chat import AgentProgress, StepTaken, agent_states
from ragcore.llms import FakeLLM
from ragcore.memory import ChatMemory
from ragcore.tools import FunctionTool
from ragcore.trace import Trace


class SlowFirstToken(FakeLLM):
    """A FakeLLM whose every reply starts after ``delay`` seconds (a busy model reading)."""

    def __init__(self, replies: list[str], *, delay: float) -> None:
        super().__init__(replies)
        self.delay = delay

    def stream(self, messages):
        time.sleep(self.delay)
        yield from super().stream(messages)


def search_documents(input: str) -> str:
    """Search the documents."""
    time.sleep(0.8)  # the search tool answers from passages: it takes a while too
    return "The Moon raises the tides."


def _timeline(delay: float) -> tuple[list[tuple[float, object]], str]:
    llm = SlowFirstToken([
        'Thought: I should search.\nAction: search_documents\nAction Input: {"input": "tides"}',
        "Thought: I know.\nAnswer: The Moon raises the tides.",
    ], delay=delay)
    agent = ReActAgent([FunctionTool.from_defaults(search_documents)], llm=llm)
    trace = Trace()
    reply = agent.chat("What raises the tides?", ChatMemory(), trace=trace)
    began, seen, text = time.monotonic(), [], ""
    for item in agent_states(iter(reply), trace.notes, tick=0.1):
        seen.append((time.monotonic() - began, item))
        text += item if isinstance(item, str) else ""
    return seen, text


def test_the_first_step_is_told_at_once_and_the_line_moves_while_the_model_is_silent():
    seen, text = _timeline(delay=2.5)
    assert text == "The Moon raises the tides."
    when, first = seen[0]
    assert when < 0.5 and isinstance(first, AgentProgress)
    assert first.line() == "Step 1: deciding whether to search, and for what… 0 s"
    lines = [(t, i.line()) for t, i in seen if isinstance(i, AgentProgress)]
    changes = [t for (t, line), (_, before) in zip(lines[1:], lines) if line != before]
    gaps = [b - a for a, b in zip([0.0, *changes], [*changes, seen[-1][0]])]
    assert max(gaps) < 1.5  # never unchanged for long: the seconds count on
    said = [line for _, line in lines]
    assert "Step 1: searching the documents for: tides… 0 s" in said  # the tool runs
    assert any(line.startswith("Step 2: reading what it found") for line in said)
    assert any(line.startswith("Step 2: writing the answer") for line in said)


def test_each_step_is_told_as_it_ends_before_the_answer():
    seen, _ = _timeline(delay=0.2)
    kinds = [type(i).__name__ for _, i in seen if not isinstance(i, AgentProgress)]
    assert kinds[0] == "StepTaken" and kinds.index("StepTaken") < kinds.index("str")
    taken = [i for _, i in seen if isinstance(i, StepTaken)]
    assert [(t.number, t.step["action"]) for t in taken] == [(1, "search_documents")]
