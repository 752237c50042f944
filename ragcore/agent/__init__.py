"""Agents: a model that calls tools in a loop until it can answer.

``ReActAgent`` works with any LLM: it describes the tools in the prompt and parses the model's
Thought / Action / Action Input / Answer text (``react_format``, ``react_parser``); its loop can be
driven one step at a time (``create_task``, ``run_step``, ``finalize``). ``FunctionCallingAgent``
uses a backend's native tool calls (the OpenAI tools API). Both answer ``chat(message, memory)``
with a ``ChatResponse`` like the chat engines; what they share around the step (construction,
``create_task``, ``finalize``, ``chat``) is written once in ``base.Agent``.
"""

from .function_calling import FunctionCallingAgent
from .react import ReActAgent
from .react_parser import ActionStep, AnswerScanner, AnswerStep, ParseError, parse_react_reply
from .task import StepResult, Task

__all__ = [
    "ActionStep",
    "AnswerScanner",
    "AnswerStep",
    "FunctionCallingAgent",
    "ParseError",
    "ReActAgent",
    "StepResult",
    "Task",
    "parse_react_reply",
]
