"""The ReAct prompt: the system header describing tools and the reply format, plus the scratchpad.

A ReAct conversation sent to the model is:

    system     REACT header (optional caller system prompt, tools with JSON schemas, format)
    ...        the chat history from memory, ending with the user's current message
    assistant  "Thought: ...\\nAction: tool\\nAction Input: {...}"     one pair per step
    user       "Observation: <tool output>"

The model replies either with Thought / Action / Action Input (the agent calls the tool and adds
the Observation) or with Thought / Answer (the final answer for the user). Pure functions, no I/O.
The header's wording is ``ragcore.prompts.agent.REACT_SYSTEM_TEMPLATE``; the marker words below
are what the parser (``react_parser``) looks for; a backend answering requests (the extractive
one) gets the observations and tools as data (``observations``, ``question_argument``) instead
of reading this format.
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from ..prompts.agent import REACT_DEFAULT_ROLE, REACT_SYSTEM_TEMPLATE
from ..tools import Tool
from ..types import Message

THOUGHT = "Thought:"
ACTION = "Action:"
ACTION_INPUT = "Action Input:"
OBSERVATION = "Observation:"
ANSWER = "Answer:"


def describe_tool(tool: Tool) -> str:
    """One tool as the prompt shows it: name, description, argument schema."""
    meta = tool.metadata
    return (
        f"> Tool: {meta.name}\n"
        f"  Description: {meta.description}\n"
        f"  Arguments (JSON schema): {meta.schema_json()}"
    )


def _example_input(tools: Sequence[Tool]) -> str:
    if not tools:
        return '{"input": "hello world"}'
    properties = tools[0].metadata.parameters.get("properties", {})
    example: dict[str, Any] = {}
    for name, prop in list(properties.items())[:2]:
        kind = prop.get("type")
        example[name] = 1 if kind in ("integer", "number") else "..."
    return json.dumps(example or {"input": "hello world"})


def react_system_prompt(tools: Sequence[Tool], *, system_prompt: str | None = None) -> str:
    """The system message of a ReAct conversation for ``tools``."""
    descriptions = "\n\n".join(describe_tool(t) for t in tools) or "(no tools)"
    return REACT_SYSTEM_TEMPLATE.format(
        role=(system_prompt or REACT_DEFAULT_ROLE).strip(),
        tool_descriptions=descriptions,
        tool_names=", ".join(t.metadata.name for t in tools),
        example=_example_input(tools),
    )


def format_action(thought: str, action: str, action_input: Any) -> str:
    """A step the model took, written back in canonical form for the next prompt."""
    if isinstance(action_input, str):
        rendered = action_input
    else:
        rendered = json.dumps(action_input, ensure_ascii=False, default=str)
    return f"{THOUGHT} {thought}\n{ACTION} {action}\n{ACTION_INPUT} {rendered}"


def format_observation(observation: str) -> str:
    return f"{OBSERVATION} {observation}"


def observations(scratchpad: Sequence[Message]) -> tuple[str, ...]:
    """The tool results this turn's (fitted) scratchpad shows, in order, without the marker."""
    shown = (m.content.lstrip() for m in scratchpad if m.role == "user" and m.content)
    return tuple(text[len(OBSERVATION):].strip() for text in shown
                 if text.startswith(OBSERVATION))


def question_argument(tool: Tool) -> str:
    """The argument a question goes to when ``tool`` is searched with one: its first required
    argument, else its first, else "input"."""
    parameters = tool.metadata.parameters
    names = parameters.get("required") or list(parameters.get("properties") or {})
    return names[0] if names else "input"


def react_messages(
    system: str, history: Sequence[Message], scratchpad: Sequence[Message]
) -> list[Message]:
    """The whole prompt: system header, the conversation, then this turn's steps."""
    return [Message("system", system), *history, *scratchpad]
