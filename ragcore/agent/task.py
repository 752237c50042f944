"""What one agent turn carries between steps: the Task, each step's result, and shared rules.

A ``Task`` is plain state (the user's message, the memory, this turn's scratchpad messages, the
steps taken, tool outputs and the source nodes they brought back, the final answer). Both agents
(ReAct and function calling) keep their state in it, record reasoning steps into the trace the
same way, and end the same way when the step limit is reached.
"""

from __future__ import annotations

import json
import sys
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ..chat.turn import close_prompt, fixed_parts, history_need, start_turn
from ..errors import ConfigError
from ..llms.base import LLM
from ..memory import ChatMemory
from ..prompt_budget import (SCRATCHPAD_SHARE, PromptBudget, fit_steps, tokens_of,
                             truncate_to_tokens)
from ..grounding import check_answer
from ..tools import Tool, ToolOutput
from ..trace import Trace
from ..types import Message, ScoredNode


@dataclass(slots=True)
class StepResult:
    """One step: the model's reply and what came of it (an action's observation or the answer)."""

    reply: str
    thought: str = ""
    action: str | None = None
    action_input: Any = None
    observation: str | None = None
    answer: str | None = None
    tool_output: ToolOutput | None = None

    @property
    def is_last(self) -> bool:
        return self.answer is not None

    def to_note(self) -> dict[str, Any]:
        """The step as the trace shows it (trace.notes["reasoning"])."""
        if self.answer is not None:
            return {"thought": self.thought, "answer": self.answer}
        return {
            "thought": self.thought,
            "action": self.action,
            "action_input": self.action_input,
            "observation": self.observation,
        }


@dataclass(slots=True)
class Task:
    """One user message being worked on by an agent."""

    input: str
    memory: ChatMemory
    trace: Trace
    task_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    scratchpad: list[Message] = field(default_factory=list)
    steps: list[StepResult] = field(default_factory=list)
    tool_outputs: list[ToolOutput] = field(default_factory=list)
    source_nodes: list[ScoredNode] = field(default_factory=list)
    answer: str | None = None
    rounds: int = 0  # model calls made (the function-calling agent's step count)
    remembered: bool = False
    echo: Callable[[StepResult], None] | None = None  # shows each step (an agent's verbose=)

    @property
    def done(self) -> bool:
        return self.answer is not None

    def act(self, action: str, action_input: Any) -> None:
        """Note the tool call under way (``trace.notes["acting"]``, until its step is recorded),
        so a page can say what the agent does while the tool runs."""
        self.trace.notes["acting"] = {"action": action, "action_input": action_input}

    def record(self, step: StepResult) -> None:
        """Keep the step, its tool output and sources, and note it in the trace."""
        self.trace.notes.pop("acting", None)
        self.steps.append(step)
        self.trace.notes.setdefault("reasoning", []).append(step.to_note())
        if self.echo is not None:
            self.echo(step)
        output = step.tool_output
        if output is not None and not output.is_error:
            self.tool_outputs.append(output)
            add_sources(self.source_nodes, getattr(output.raw_output, "source_nodes", None))
        if step.answer is not None:
            self.answer = step.answer

    def observed(self) -> list[str]:
        """What the tools showed: every observation, and the passages behind them."""
        seen = [step.observation for step in self.steps if step.observation]
        return seen + [scored.node.text for scored in self.source_nodes]

    def judge(self) -> None:
        """The grounding verdict on the answer against what the tools showed, in the trace
        notes (``agent_verdict``): "unobserved" when no tool showed anything."""
        if self.answer is None or "agent_verdict" in self.trace.notes:
            return
        seen = self.observed()
        self.trace.notes["agent_verdict"] = (
            check_answer(self.answer, seen, question=self.input).as_dict() if seen
            else {"label": "unobserved", "claims": []})

    def remember(self) -> None:
        """Put the final answer into the memory (once)."""
        self.judge()
        if self.answer is not None and not self.remembered:
            self.memory.put(Message("assistant", self.answer))
            self.remembered = True


def echo_step(step: StepResult) -> None:
    """Write a step to stdout as LlamaIndex's ``verbose=True`` agents do (the user asked)."""
    note = step.to_note()
    lines = [f"{key.replace('_', ' ').capitalize()}: {value}" for key, value in note.items()
             if value not in (None, "")]
    sys.stdout.write("\n".join(lines) + "\n")


def new_task(message: str, memory: ChatMemory, trace: Trace | None) -> Task:
    """A task for ``message``, whose user message is put into the memory (see ``start_turn``)."""
    start_turn(memory, message)
    return Task(input=message, memory=memory, trace=trace if trace is not None else Trace())


def fit_prompt(
    task: Task, llm: LLM, *, system_tokens: int, prompt: str
) -> tuple[list[Message], list[Message]]:
    """The history (ending with the task's message) and the scratchpad for the next model call.

    ``ragcore.prompt_budget``'s rule: the system part (``system_tokens``: instructions, tools)
    and the message are fixed; the scratchpad comes first among the flexible parts, sure of
    ``SCRATCHPAD_SHARE`` of the room, and the earlier conversation gets the rest.
    """
    fixed = fixed_parts(system_tokens, task.input)
    room = PromptBudget.of(llm).room(fixed, prompt=f"the agent prompt ({prompt})")
    later = history_need(task.memory, task.input)
    offer = room.offer(tokens_of(task.scratchpad), share=SCRATCHPAD_SHARE, later=later)
    scratchpad = fit_steps(task.scratchpad, offer, room)
    room.take(tokens_of(scratchpad))
    history = close_prompt(task.memory, task.input, room)
    room.record(task.trace, prompt)
    return history, scratchpad


def prompt_observation(text: str, llm: LLM) -> str:
    """A tool output as the scratchpad keeps it: whole, or its start and a note when it is longer
    than the model's whole prompt window. Cut once here (one tokenizer pass), because the prompt
    is fitted again at every step and no prompt can show more than a window of it: a 2M-character
    output was otherwise tokenized whole about ten times per step (33 s for one turn)."""
    head, cut = truncate_to_tokens(text, PromptBudget.of(llm).limit)
    if not cut:
        return text
    return f"{head}\n[... {cut:,} more tokens cut: the output is longer than the context window]"


def add_sources(sources: list[ScoredNode], new: Iterable[ScoredNode] | None) -> None:
    """Append new source nodes in place, skipping nodes already present."""
    seen = {s.node.node_id for s in sources}
    for scored in new or ():
        if isinstance(scored, ScoredNode) and scored.node.node_id not in seen:
            sources.append(scored)
            seen.add(scored.node.node_id)


def tool_map(tools: Sequence[Tool]) -> dict[str, Tool]:
    """Tools by name; ConfigError for something that is not a tool or a repeated name."""
    by_name: dict[str, Tool] = {}
    for tool in tools:
        if not isinstance(tool, Tool):
            raise ConfigError(
                f"{tool!r} is not a tool: wrap functions with FunctionTool.from_defaults(fn) "
                "and query engines with QueryEngineTool(engine)"
            )
        name = tool.metadata.name
        if name in by_name:
            raise ConfigError(f"two tools are named {name!r}: pass name=... to tell them apart")
        by_name[name] = tool
    return by_name


def check_max_iterations(max_iterations: int) -> int:
    valid = isinstance(max_iterations, int) and not isinstance(max_iterations, bool)
    if not valid or max_iterations < 1:
        raise ConfigError(f"max_iterations ({max_iterations!r}) must be a positive integer")
    return max_iterations


def earlier_call(task: Task, action: str, action_input: Any) -> tuple[int, ToolOutput] | None:
    """How many times this task already made the call ``action(action_input)``, and its first
    output: a small model asks the same search again and again, reading the same answer."""
    key = _call_key(action, action_input)
    same = [step for step in task.steps
            if step.action is not None and _call_key(step.action, step.action_input) == key]
    first = next((step.tool_output for step in same if step.tool_output is not None), None)
    return (len(same), first) if first is not None else None


def _call_key(action: str, action_input: Any) -> str:
    text = action_input if isinstance(action_input, str) else json.dumps(
        action_input, sort_keys=True, default=str)
    return f"{action.strip().lower()}\x00{' '.join(text.lower().split())}"


REPEATED = ("You already called {action} with this input, and it answered:\n{content}\n"
            "Write the Answer from that now, or call a tool with a different input.")


def limit_answer(task: Task, max_iterations: int) -> str:
    """The best answer from what was gathered when the step limit stops the loop, saying so."""
    task.trace.notes["stopped"] = f"reached max_iterations ({max_iterations})"
    if task.tool_outputs:
        found = task.tool_outputs[-1].content.strip()
        return (
            f"I reached my limit of {max_iterations} reasoning steps before finishing, so this "
            f"answer may be incomplete. The most relevant thing I found:\n\n{found}"
        )
    return (
        f"I reached my limit of {max_iterations} reasoning steps without finding an answer. "
        "Try a more specific question, or allow more steps (max_iterations)."
    )
