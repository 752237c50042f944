"""Parse a ReAct model reply into an action, an answer, or a parse error. Never raises.

Real models bend the format, so the parser accepts: no Thought line; an answer with no prefix;
"Final Answer:"; markdown emphasis around markers (``**Action:**``); any capitalization and extra
whitespace; Action Input as JSON inside ``` fences, with single quotes or Python literals, with
trailing text after the object, or as plain text (bound later to a one-parameter tool). The first
Action or Answer marker at the start of a line decides what the reply is; an Observation the model
invented after its Action is ignored. Anything else becomes a ``ParseError`` whose ``observation``
tells the model how to fix its reply. ``AnswerScanner`` finds the answer while a reply streams,
using the same markers, so only the answer text reaches the user.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

# A marker at the start of a line, optionally wrapped in markdown (**, __, #, >, -) with any case.
_LEAD = r"^[ \t]*(?:[#>*_`-][ \t#>*_`-]*)?"
_TAIL = r"[ \t*_`]*:[ \t*_`]*"
_ACTION_OR_ANSWER = re.compile(
    _LEAD + r"(?P<kind>final[ \t]+answer|answer|action(?![ \t_]*input))" + _TAIL,
    re.IGNORECASE | re.MULTILINE,
)
_ACTION_INPUT = re.compile(_LEAD + r"action[ \t_]*input" + _TAIL, re.IGNORECASE | re.MULTILINE)
_THOUGHT = re.compile(_LEAD + r"thought" + _TAIL, re.IGNORECASE | re.MULTILINE)
_OBSERVATION = re.compile(_LEAD + r"observation" + _TAIL, re.IGNORECASE | re.MULTILINE)
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]+")

FORMAT_HINT = (
    "Reply either with\nThought: ...\nAction: <tool name>\nAction Input: {\"arg\": \"value\"}\n"
    "or with\nThought: ...\nAnswer: <your answer>"
)


@dataclass(slots=True, frozen=True)
class ActionStep:
    """The model wants to call a tool. ``action_input`` is a dict, or raw text if not JSON."""

    thought: str
    action: str
    action_input: dict[str, Any] | str


@dataclass(slots=True, frozen=True)
class AnswerStep:
    """The model's final answer for the user."""

    thought: str
    answer: str


@dataclass(slots=True, frozen=True)
class ParseError:
    """A reply that is neither an action nor an answer; ``observation`` says what to fix."""

    problem: str
    reply: str

    @property
    def observation(self) -> str:
        return f"Error: I could not read your reply: {self.problem}. {FORMAT_HINT}"


ReActStep = ActionStep | AnswerStep | ParseError


def parse_react_reply(text: str) -> ReActStep:
    """Classify one model reply."""
    if not isinstance(text, str) or not text.strip():
        return ParseError("the reply was empty", text if isinstance(text, str) else "")
    marker = _ACTION_OR_ANSWER.search(text)
    if marker is None:
        return _unmarked(text)
    thought = _thought_before(text, marker.start())
    if "answer" in marker.group("kind").lower():
        answer = text[marker.end() :].strip()
        if not answer:
            return ParseError("'Answer:' was followed by nothing", text)
        return AnswerStep(thought, answer)
    return _action(text, marker, thought)


def _unmarked(text: str) -> ReActStep:
    if _ACTION_INPUT.search(text):
        problem = "there was an 'Action Input:' but no 'Action:' line naming the tool"
        return ParseError(problem, text)
    if _THOUGHT.search(text):
        return ParseError("there was a Thought but no 'Action:' or 'Answer:' line", text)
    return AnswerStep("(implicit) answered without the Answer: marker", text.strip())


def _thought_before(text: str, end: int) -> str:
    head = text[:end]
    matches = list(_THOUGHT.finditer(head))
    body = head[matches[-1].end() :] if matches else head
    return " ".join(body.split())


def _action(text: str, marker: re.Match[str], thought: str) -> ReActStep:
    line_end = text.find("\n", marker.end())
    line = text[marker.end() : line_end if line_end != -1 else len(text)]
    name_match = _TOOL_NAME.search(line)
    if name_match is None:
        return ParseError("'Action:' did not name a tool", text)
    action = name_match.group(0).strip(".")
    rest = text[marker.end() :]
    input_marker = _ACTION_INPUT.search(rest)
    if input_marker is None:
        # "Action: tool {json}" on one line, or no input at all (a tool without arguments).
        inline = line[name_match.end() :].strip()
        return ActionStep(thought, action, parse_action_input(inline) if inline else {})
    body = rest[input_marker.end() :]
    observation = _OBSERVATION.search(body)
    if observation is not None:
        body = body[: observation.start()]
    return ActionStep(thought, action, parse_action_input(body))


def parse_action_input(text: str) -> dict[str, Any] | str:
    """A JSON object as models write it; plain text (not an object) is returned stripped."""
    text = text.strip()
    fenced = _FENCE.search(text)
    text = fenced.group(1).strip() if fenced is not None else text.strip("`").strip()
    start = text.find("{")
    if start == -1:
        return _unquote(text)
    candidate = _balanced_object(text, start)
    value = _load_object(candidate)
    if isinstance(value, dict):
        return {str(k): v for k, v in value.items()}
    return _unquote(text)


def _unquote(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


def _balanced_object(text: str, start: int) -> str:
    """The text of the object starting at ``start`` up to its matching brace (or the end)."""
    depth = 0
    quote: str | None = None
    escaped = False
    for i in range(start, len(text)):
        char = text[i]
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


_PY_LITERALS = ((r"\btrue\b", "True"), (r"\bfalse\b", "False"), (r"\bnull\b", "None"))
_LOAD_ERRORS = (ValueError, SyntaxError, TypeError, MemoryError, RecursionError)


def _load_object(candidate: str) -> Any:
    """json, then Python literal syntax (single quotes), then JSON literals fixed for Python."""
    without_trailing_commas = re.sub(r",\s*([}\]])", r"\1", candidate)
    for attempt in (candidate, without_trailing_commas):
        pythonic = attempt
        for pattern, replacement in _PY_LITERALS:
            pythonic = re.sub(pattern, replacement, pythonic)
        for load in (json.loads, ast.literal_eval):
            for text in (attempt, pythonic):
                try:
                    return load(text)
                except _LOAD_ERRORS:
                    continue
    return None


class AnswerScanner:
    """Feed a streaming reply; get back only the final-answer text, as soon as it is known.

    Text is released once the first Action/Answer marker turns out to be an Answer (nothing is
    released for an action). Leading whitespace is dropped and trailing whitespace held back, so
    the released text equals ``AnswerStep.answer`` when the whole reply parses as a marked answer.
    """

    def __init__(self) -> None:
        self._buffer = ""
        self._start: int | None = None  # where the answer text begins, once known
        self._decided = False
        self._released = 0

    @property
    def answering(self) -> bool:
        return self._start is not None

    @property
    def released(self) -> str:
        """The answer text released so far."""
        if self._start is None:
            return ""
        return self._buffer[self._start : self._start + self._released]

    def feed(self, chunk: str) -> str:
        self._buffer += chunk
        if not self._decided:
            self._decide()
        if self._start is None:
            return ""
        answer = self._buffer[self._start :]
        stripped = answer.lstrip()
        self._start += len(answer) - len(stripped)
        ready = len(stripped.rstrip())
        if ready <= self._released:
            return ""
        out = stripped[self._released : ready]
        self._released = ready
        return out

    def _decide(self) -> None:
        marker = _ACTION_OR_ANSWER.search(self._buffer)
        # Wait for a character after the marker: "**Answer:*" may still grow into "**Answer:**".
        if marker is None or marker.end() >= len(self._buffer):
            return
        self._decided = True
        if "answer" in marker.group("kind").lower():
            self._start = marker.end()
