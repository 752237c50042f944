"""The function-calling agent: the OpenAI tools API instead of a text format to parse.

Each round sends the conversation and the tools' JSON schemas with ``chat_with_tools``; every
tool call in the reply (a model may ask for several at once) is run and its result sent back as a
``tool`` message carrying the call's ``tool_call_id``; a reply without tool calls is the answer.
Bad arguments, unknown tools and tool exceptions become tool results the model can react to; at
the step limit (``max_iterations`` rounds) the turn ends with the best answer gathered so far.

Compared with ``ReActAgent``, nothing is parsed from free text, so it suits backends with native
tool support (``OpenAILLM``). The answer arrives whole with the last round, so it is yielded as
one chunk (an empty one becomes ``streaming.EMPTY_REPLY``). Only the user's message and the final
answer go into the memory. Tool results are kept whole in the task and clipped to their share of
the window when each prompt is built (``task.fit_prompt``).
"""

from __future__ import annotations

import json
import time
from typing import Any, Iterator, Sequence

from ..errors import ConfigError, LLMStatusError
from ..llms.base import ToolCallingLLM
from ..prompts import message_tokens
from ..prompts.agent import FUNCTION_CALLING_SYSTEM_PROMPT
from ..streaming import reply_or_notice
from ..tokens import count_tokens
from ..tools import Tool, ToolOutput, invoke_tool
from ..types import Message, ToolCall
from .base import Agent
from .react_parser import parse_action_input
from .task import StepResult, Task, fit_prompt, prompt_observation

_TOOLS_REJECTED = (400, 422, 501)  # how servers without tool support answer a request with tools


class FunctionCallingAgent(Agent):
    """An agent for LLMs with native tool calls; stateless and shareable like the chat engines."""

    mode = "function_calling"

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        llm: ToolCallingLLM,
        max_iterations: int = 10,
        system_prompt: str | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(llm, ToolCallingLLM):
            raise ConfigError(
                f"{type(llm).__name__} cannot call tools (no chat_with_tools): use an "
                "OpenAI-compatible backend, or ReActAgent, which works with any LLM"
            )
        super().__init__(tools, llm=llm, max_iterations=max_iterations, verbose=verbose)
        self.system_prompt = system_prompt or FUNCTION_CALLING_SYSTEM_PROMPT
        self.openai_tools = [t.metadata.to_openai_tool() for t in self.tools.values()]

    def run_step(self, task: Task) -> list[StepResult]:
        """One round: one model call, then every tool call it asked for (in order)."""
        if not self.check_open(task):
            step = self.limit_step(task)
            task.record(step)
            return [step]
        task.rounds += 1
        reply = self._ask(task, f"tools step {task.rounds}")
        if not reply.tool_calls:
            answer = reply_or_notice(reply.content.strip(), task.trace.notes)
            step = StepResult(reply=reply.content, answer=answer)
            task.record(step)
            return [step]
        task.scratchpad.append(reply)
        return [self._run_call(task, call, reply.content) for call in reply.tool_calls]

    def stream_answer(self, task: Task) -> Iterator[str]:
        """The rounds run while the response is read; the answer arrives whole, as one chunk."""
        while not task.done:
            self.run_step(task)
        yield task.answer or ""

    def steps_taken(self, task: Task) -> int:
        return task.rounds

    # ---- internals ----------------------------------------------------------------------------

    def build_prompt(self, task: Task) -> list[Message]:
        """System prompt, the history, then this turn's calls and results, fitted to the window
        (``task.fit_prompt``): the tool schemas count with the system prompt as fixed."""
        system = Message("system", self.system_prompt)
        fixed = message_tokens(system) + count_tokens(json.dumps(self.openai_tools))
        history, scratchpad = fit_prompt(
            task, self.llm, system_tokens=fixed, prompt=f"tools step {task.rounds}"
        )
        return [system, *history, *scratchpad]

    def _ask(self, task: Task, purpose: str) -> Message:
        messages = self.build_prompt(task)
        start = time.perf_counter()
        try:
            reply = self.llm.chat_with_tools(messages, self.openai_tools)
        except LLMStatusError as exc:
            if exc.status_code not in _TOOLS_REJECTED:
                raise
            raise LLMStatusError(
                f"{exc} (the server may not support tool calls: use chat_mode='react' or "
                "'condense_plus_context', which work with any model)",
                exc.status_code,
            ) from exc
        seconds = time.perf_counter() - start
        shown = reply.content + "".join(
            f"\n[tool call {c.name}({c.arguments})]" for c in reply.tool_calls
        )
        task.trace.record_llm_call(purpose, messages, shown, seconds, model=self.llm.model)
        return reply

    def _run_call(self, task: Task, call: ToolCall, thought: str) -> StepResult:
        arguments = _arguments(call.arguments)
        if isinstance(arguments, dict):
            task.act(call.name, arguments)
            output = invoke_tool(self.tools, call.name, arguments, trace=task.trace)
        else:
            content = (
                f"Error: the arguments of {call.name} must be a JSON object, got "
                f"{call.arguments[:200]!r}"
            )
            output = ToolOutput(content, call.name, {"text": call.arguments}, is_error=True)
        task.scratchpad.append(
            Message("tool", prompt_observation(output.content, self.llm), tool_call_id=call.id,
                    name=call.name)
        )
        step = StepResult(
            reply=thought,
            thought=thought,
            action=call.name,
            action_input=arguments,
            observation=output.content,
            tool_output=output,
        )
        task.record(step)
        return step


def _arguments(text: str) -> dict[str, Any] | str:
    """A tool call's arguments: JSON text, repaired the way the ReAct parser repairs it."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = parse_action_input(text)
    return value if isinstance(value, dict) else text
