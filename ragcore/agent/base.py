"""What both agents share around their loops: construction, the task API's ends, the lazy chat.

``ReActAgent`` and ``FunctionCallingAgent`` differ only in how one step talks to the model (a
text format to parse, or native tool calls). Everything around the step is the same and lives
here once: tools and the step limit checked in ``__init__``, ``from_tools``, ``create_task``,
``finalize`` and ``chat``, which streams ``stream_answer(task)`` as the response is read and puts
the answer into the memory when it completes. A subclass supplies ``stream_answer`` and
``steps_taken``, and checks its ``llm`` before calling ``super().__init__``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar, Iterator, Self, Sequence

from ..chat.response import ChatResponse
from ..synthesis.response import AnswerCheck
from ..errors import ConfigError
from ..llms.base import LLM
from ..memory import ChatMemory
from ..tools import Tool
from ..trace import Trace
from .task import (
    StepResult, Task, check_max_iterations, echo_step, limit_answer, new_task, tool_map,
)


class Agent(ABC):
    """The shared part of an agent; stateless, so one instance can serve many conversations."""

    mode: ClassVar[str] = ""  # the ChatResponse.mode and trace note of this agent's replies
    # How its final answers are shown (ChatResponse.shown): checked against the passages its
    # tools returned; set by ``index.as_chat_engine()`` (None: the answer as written).
    check: AnswerCheck | None = None

    def __init__(
        self,
        tools: Sequence[Tool],
        *,
        llm: LLM,
        max_iterations: int = 10,
        system_prompt: str | None = None,
        verbose: bool = False,
    ) -> None:
        self.tools = tool_map(tools)
        self.llm = llm
        self.max_iterations = check_max_iterations(max_iterations)
        self.system_prompt = system_prompt
        self.verbose = bool(verbose)  # write each step to stdout as it happens (LlamaIndex's)

    @classmethod
    def from_tools(
        cls,
        tools: Sequence[Tool],
        *,
        llm: LLM,
        max_iterations: int = 10,
        system_prompt: str | None = None,
        verbose: bool = False,
    ) -> Self:
        return cls(tools, llm=llm, max_iterations=max_iterations, system_prompt=system_prompt,
                   verbose=verbose)

    def create_task(
        self, message: str, memory: ChatMemory, *, trace: Trace | None = None
    ) -> Task:
        """Start a turn: the user's message goes into the memory (a retry is not duplicated)."""
        task = new_task(message, memory, trace)
        if self.verbose:
            task.echo = echo_step
        return task

    def finalize(self, task: Task) -> ChatResponse:
        """End the turn: its answer (or the best so far) as a response, saved in the memory."""
        if not task.done:
            answer = limit_answer(task, self.steps_taken(task))
            task.record(StepResult(reply="", thought="finalized early", answer=answer))
        task.remember()
        return ChatResponse.from_text(task.answer or "", **self._response_parts(task))

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        """Answer ``message``: the loop runs as the response is read; only the answer streams."""
        task = self.create_task(message, memory, trace=trace)
        return ChatResponse(
            lambda: self.stream_answer(task),
            on_complete=lambda _text: task.remember(),
            **self._response_parts(task),
        )

    # ---- what a subclass supplies -------------------------------------------------------------

    @abstractmethod
    def stream_answer(self, task: Task) -> Iterator[str]:
        """Run the task's steps until it is done, yielding the final answer's text."""
        ...

    @abstractmethod
    def steps_taken(self, task: Task) -> int:
        """How many steps count against ``max_iterations`` so far."""
        ...

    # ---- shared parts of a step ---------------------------------------------------------------

    def check_open(self, task: Task) -> bool:
        """Whether the task may take another step; ConfigError for a finished task."""
        if not isinstance(task, Task):
            raise ConfigError(
                f"expected the Task that create_task(message, memory) returned, got "
                f"{type(task).__name__} {task!r}: pass the task object, not its id"
            )
        if task.done:
            raise ConfigError(f"task {task.task_id} is finished: call finalize(task)")
        return self.steps_taken(task) < self.max_iterations

    def limit_step(self, task: Task) -> StepResult:
        """The step that ends a task at the step limit (no model call)."""
        answer = limit_answer(task, self.max_iterations)
        return StepResult(reply="", thought="step limit reached", answer=answer)

    def _response_parts(self, task: Task) -> dict[str, Any]:
        return {
            "trace": task.trace,
            "source_nodes": task.source_nodes,
            "tool_outputs": task.tool_outputs,
            "mode": self.mode,
            "check": self.check,
            "question": task.input,
        }
