"""Tool calls a small local model writes as text, read back into the OpenAI tools shape.

llama.cpp turns a model's tool call into ``tool_calls`` when the model writes its template's own
syntax. Small models often do not: Qwen2.5-Coder-1.5B answers a request with tools by writing
``{"name": ..., "arguments": {...}}`` inside a ```json fence, or inside ``<tool_call>`` tags.
``tool_calls_in_text`` recognises those forms, only for a tool that was offered, so the
function-calling agent runs on the packaged model; anything else stays the reply's text.
Pure functions, no I/O.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Sequence

from ..types import Message, ToolCall

_FENCED = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)
_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def tool_calls_in_text(text: str, tool_names: Iterable[str]) -> list[ToolCall]:
    """The calls of offered tools ``text`` spells as JSON objects (fenced, tagged or bare)."""
    names = set(tool_names)
    pieces = _TAGGED.findall(text) or _FENCED.findall(text) or [text]
    calls = []
    for piece in pieces:
        for call in _objects(piece.strip()):
            name, arguments = _call_parts(call)
            if name in names:
                calls.append(ToolCall(f"call_{len(calls)}", name, json.dumps(arguments)))
    return calls


def _objects(text: str) -> list[Any]:
    """The JSON value(s) of ``text``: one object, a list of them, or objects one per line;
    an object opened with a doubled brace (``{{"name": ...}``, as in a template the model
    copied) is read without it."""
    for candidate in (text, text[1:] if text.startswith("{{") else None,
                      text[1:-1] if text.startswith("{{") and text.endswith("}}}") else None):
        if candidate is None:
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        return value if isinstance(value, list) else [value]
    values = []
    for line in text.splitlines():
        try:
            values.append(json.loads(line))
        except ValueError:
            continue
    return values


def _call_parts(call: Any) -> tuple[str, dict[str, Any]]:
    """(name, arguments) of ``{"name", "arguments"|"parameters"}``, or ("", {}) otherwise."""
    if not isinstance(call, dict):
        return "", {}
    if isinstance(call.get("function"), dict):  # {"function": {"name", "arguments"}}
        call = call["function"]
    arguments = call.get("arguments", call.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return "", {}
    if not isinstance(call.get("name"), str) or not isinstance(arguments, dict):
        return "", {}
    return call["name"], arguments


def repeats_calls(calls: list[ToolCall], messages: Sequence[Message]) -> bool:
    """Whether every call in ``calls`` was already made, with the same arguments, in ``messages``
    (a loop a small model falls into after reading the tool's result)."""
    made = {(c.name, _canonical(c.arguments)) for m in messages for c in m.tool_calls}
    return bool(calls) and all((c.name, _canonical(c.arguments)) in made for c in calls)


def fresh_ids(calls: list[ToolCall], messages: Sequence[Message]) -> list[ToolCall]:
    """``calls`` with ids no earlier call in ``messages`` has (a small model's, or the text
    reader's, numbering restarts at ``call_0`` each turn; a tool result must name one call)."""
    taken = {c.id for m in messages for c in m.tool_calls}
    fresh, number = [], len(taken)
    for call in calls:
        while call.id in taken:
            call = ToolCall(f"call_{number}", call.name, call.arguments)
            number += 1
        taken.add(call.id)
        fresh.append(call)
    return fresh


def _canonical(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), sort_keys=True)
    except ValueError:
        return arguments.strip()
