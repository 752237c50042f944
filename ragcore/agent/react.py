"""The ReAct agent: think, call a tool, observe, repeat, answer; one loop, drivable step by step.

The loop is a step machine with no LLM I/O: ``next_prompt(task)`` gives the messages for the next
model call (``react_format``), and ``apply_reply(task, reply)`` parses the reply
(``react_parser``), runs the tool it asks for and records the step, so the next prompt carries the
observation. ``stream_step`` is the one place that calls the LLM; ``run_step`` drains it, and
``chat`` repeats it, streaming only the final answer's text: each reply is fed to an
``AnswerScanner`` that releases text once the reply turns out to be an Answer, so Thought/Action
lines never reach the user. A test (or another driver, e.g. async) can run the machine with
replies from anywhere. Each call also states what it asks (an ``AnswerRequest``: the message,
the conversation and this turn's observations it shows, the tools) for a backend that answers
requests instead of reading the format (the extractive one, ``llms.base.answering``).

Nothing the model writes makes the loop raise: an unreadable reply, an unknown tool, bad
arguments and a tool's exception all become observations telling the model what to fix. At the
step limit the turn ends with the best answer gathered so far, saying so. Errors of the LLM itself
(e.g. a server that is down) propagate.

Observations are kept whole in the task; each prompt is fitted to the window when it is built
(``task.fit_prompt``), where long tool outputs are clipped and older steps summarised, so the
scratchpad can never crowd out the user's message.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping, Sequence

from ..errors import ConfigError
from ..llms.base import LLM, answering, noting, stopping_at, stream_traced
from ..prompts import message_tokens
from ..tools import Tool, ToolOutput, invoke_tool
from ..trace import Trace
from ..types import AnswerRequest, Message
from .base import Agent
from .react_format import (
    OBSERVATION,
    format_action,
    format_observation,
    observations,
    question_argument,
    react_messages,
    react_system_prompt,
)
from .react_parser import ActionStep, AnswerScanner, AnswerStep, ParseError, parse_react_reply
from .task import REPEATED, StepResult, Task, earlier_call, fit_prompt, prompt_observation


class ReActAgent(Agent):
    """A ReAct agent over tools; stateless, so one instance can serve many conversations."""

    mode = "react"

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        llm: LLM,
        max_iterations: int = 10,
        system_prompt: str | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(llm, LLM):
            raise ConfigError(f"llm must implement the LLM protocol, got {type(llm).__name__}")
        super().__init__(tools, llm=llm, max_iterations=max_iterations, system_prompt=system_prompt,
                         verbose=verbose)
        self.system = react_system_prompt(list(self.tools.values()), system_prompt=system_prompt)
        self.tool_arguments = tuple((name, question_argument(tool))
                                    for name, tool in self.tools.items())
        # A model that writes "Observation:" is inventing the tool's output: end the reply there.
        self.step_llm = stopping_at(llm, [f"\n{OBSERVATION}"])

    # ---- the step-by-step API (create_task and finalize come from Agent) ----------------------

    def run_step(self, task: Task) -> StepResult:
        """One step: one LLM call and, for an action, one tool call. Inspect the result."""
        "".join(self.stream_step(task))  # drain: the step's result is what matters here
        return task.steps[-1]

    def stream_step(self, task: Task) -> Iterator[str]:
        """Run one step, yielding final-answer text as it streams (nothing for an action).

        The only LLM I/O of the loop: everything else is ``next_prompt`` and ``apply_reply``.
        """
        if not self.check_open(task):  # the step limit: no more model calls
            yield self.apply_reply(task, None).answer or ""
            return
        messages, request = self._prompt_and_request(task)
        scanner = AnswerScanner()
        parts: list[str] = []
        purpose = f"react step {len(task.steps) + 1}"
        # An answer's score goes to the trace; a backend answering requests gets this step's.
        llm = answering(noting(self.step_llm, task.trace.notes), request)
        for chunk in stream_traced(llm, messages, task.trace, purpose):
            parts.append(chunk)
            released = scanner.feed(chunk)
            if released:
                yield released
        rest = scanner.finish()
        if rest:
            yield rest
        step = self.apply_reply(task, "".join(parts))
        if step.answer is not None and not scanner.answering:
            yield step.answer  # an answer written without the "Answer:" marker

    def next_prompt(self, task: Task) -> list[Message] | None:
        """The messages for the task's next model call, or None once the step limit is reached."""
        return self.build_prompt(task) if self.check_open(task) else None

    def apply_reply(self, task: Task, reply: str | None) -> StepResult:
        """Take the model's reply to ``next_prompt`` (None at the step limit) and advance the task:
        parse it, run the tool it asks for, and record the step. No LLM call."""
        if reply is None:
            step = self.limit_step(task)
        else:
            step = self._apply(task, parse_react_reply(reply), reply)
        task.record(step)
        return step

    # ---- the driver (chat comes from Agent) ---------------------------------------------------

    def stream_answer(self, task: Task) -> Iterator[str]:
        """Run steps until the task is done; only the final answer's text streams."""
        while not task.done:
            yield from self.stream_step(task)

    def steps_taken(self, task: Task) -> int:
        return len(task.steps)

    # ---- pure parts ---------------------------------------------------------------------------

    def build_prompt(self, task: Task) -> list[Message]:
        """The messages for the next step: header, history and scratchpad, fitted to the window
        (``Task`` applies ``ragcore.prompt_budget``'s rule: the message is never cut)."""
        return self._prompt_and_request(task)[0]

    def _prompt_and_request(self, task: Task) -> tuple[list[Message], AnswerRequest]:
        """The next step's messages, and what they ask: the user's message, the conversation
        and this turn's observations the prompt shows, and the tools it offers."""
        purpose = f"react step {len(task.steps) + 1}"
        system_tokens = message_tokens(Message("system", self.system))
        history, scratchpad = fit_prompt(
            task, self.llm, system_tokens=system_tokens, prompt=purpose
        )
        request = AnswerRequest("react", task.input, observations(scratchpad),
                                conversation=history[:-1], tools=self.tool_arguments)
        return react_messages(self.system, history, scratchpad), request

    def _apply(
        self, task: Task, step: ActionStep | AnswerStep | ParseError, reply: str
    ) -> StepResult:
        if isinstance(step, AnswerStep):
            return StepResult(reply=reply, thought=step.thought, answer=step.answer)
        if isinstance(step, ParseError):
            observation = step.observation
            task.scratchpad += [
                Message("assistant", reply),
                Message("user", format_observation(observation)),
            ]
            return StepResult(reply=reply, thought="", observation=observation)
        return self._act(task, step, reply)

    def _act(self, task: Task, step: ActionStep, reply: str) -> StepResult:
        earlier = earlier_call(task, step.action, step.action_input)
        if earlier is not None:
            return self._repeated(task, step, reply, *earlier)
        task.act(step.action, step.action_input)
        output = self._call(step, task.trace)
        observation = output.content
        task.scratchpad += [
            Message("assistant", format_action(step.thought, step.action, step.action_input)),
            Message("user", format_observation(prompt_observation(observation, self.llm))),
        ]
        return StepResult(
            reply=reply,
            thought=step.thought,
            action=step.action,
            action_input=step.action_input,
            observation=observation,
            tool_output=output,
        )

    def _repeated(self, task: Task, step: ActionStep, reply: str, times: int,
                  first: ToolOutput) -> StepResult:
        """A call this task already made is not run again: the first time, the model is told
        what it answered; after that, the turn ends with that answer (what the tool showed)."""
        if times > 1:
            return StepResult(reply=reply, thought=step.thought, answer=first.content)
        observation = REPEATED.format(action=step.action, content=first.content)
        task.scratchpad += [
            Message("assistant", format_action(step.thought, step.action, step.action_input)),
            Message("user", format_observation(prompt_observation(observation, self.llm))),
        ]
        return StepResult(reply=reply, thought=step.thought, action=step.action,
                          action_input=step.action_input, observation=observation)

    def _call(self, step: ActionStep, trace: Trace) -> ToolOutput:
        arguments = bind_input(self.tools.get(step.action), step.action_input)
        if isinstance(arguments, str):  # could not bind plain text to the tool's arguments
            return ToolOutput(arguments, step.action, {"text": step.action_input}, is_error=True)
        return invoke_tool(self.tools, step.action, arguments, trace=trace)


def bind_input(tool: Tool | None, action_input: Any) -> Mapping[str, Any] | str:
    """Arguments for ``tool``: a dict as is; plain text bound to a one-parameter tool.

    Returns an error text (for the model) when plain text cannot be bound.
    """
    if isinstance(action_input, Mapping):
        return action_input
    text = str(action_input).strip()
    if tool is None:
        return {"input": text}  # the unknown name is reported by invoke_tool
    properties = list(tool.metadata.parameters.get("properties", {}))
    if len(properties) == 1 and text:
        return {properties[0]: text}
    example = json.dumps({p: "..." for p in properties})
    return (
        f"Error: Action Input for {tool.metadata.name} must be a JSON object with its "
        f"arguments, e.g. Action Input: {example}. Its schema: {tool.metadata.schema_json()}"
    )
