"""Parse a ReAct model reply into an action, an answer, or a parse error. Never raises.

Real models bend the format, so the parser accepts: no Thought line; an answer with no prefix;
"Final Answer:"; markdown or list decoration around markers (``**Action:**``, ``2. Thought:``);
any case and spacing; Action Input as JSON (in ``` fences, single-quoted, Python literals,
trailing text) or plain text (bound later to a one-parameter tool). The first Action or Answer
marker at a line's start decides what the reply is; an Observation invented after the Action
is ignored. The user never sees a marker line: an answer ends where any step's line begins,
repeated Answer markers before its text are skipped, an unmarked answer ends at an invented
Observation, and a reply opening with one (the model playing the tool) is a format error.
Anything else is a ``ParseError`` whose ``observation`` tells the model how to fix its reply
(``ragcore.prompts.agent.REACT_FORMAT_HINT``).
``AnswerScanner`` finds the answer while a reply streams, with the same markers.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from ..prompts.agent import REACT_FORMAT_HINT

# A marker at the start of a line, after any markdown or list decoration (**, __, #, >, -, +, `,
# "1." or "2)"), in any case; words separated by spaces, underscores or nothing ("FinalAnswer").
_LEAD_CHARS = " \t#>*_`+-0123456789.)"  # marker words begin with a letter, so none is a lead
_DECORATION = r"[ \t#>*_`+\-\d.)]*"
_LEAD = "^" + _DECORATION
_SEP = r"[ \t_]*"
_TAIL = r"[ \t*_`]*:[ \t*_`]*"
_ACTION_OR_ANSWER = re.compile(
    _LEAD + rf"(?P<kind>final{_SEP}answer|answer|action(?!{_SEP}input))" + _TAIL,
    re.IGNORECASE | re.MULTILINE,
)
_ACTION_INPUT = re.compile(_LEAD + rf"action{_SEP}input" + _TAIL, re.IGNORECASE | re.MULTILINE)
_THOUGHT = re.compile(_LEAD + r"thought" + _TAIL, re.IGNORECASE | re.MULTILINE)
# Where an answer stops: a line that begins any step, another Answer included (a model running
# on past its answer, or answering twice); the user never sees a marker line.
_STEP = rf"(?P<kind>thought|action(?:{_SEP}input)?|observation|final{_SEP}answer|answer)"
_ANSWER_END = re.compile(_LEAD + _STEP + _TAIL, re.IGNORECASE | re.MULTILINE)
_STEP_HERE = re.compile(_DECORATION + _STEP + _TAIL, re.IGNORECASE)  # .match at any position
# Answer markers repeated before any answer text ("Answer: **Final Answer:** 42"): skipped whole.
_ANSWER_RUN = re.compile(rf"(?:{_DECORATION}(?:final{_SEP}answer|answer){_TAIL})+", re.IGNORECASE)
_OBSERVATION = re.compile(_LEAD + r"observation" + _TAIL, re.IGNORECASE | re.MULTILINE)
_FENCE_CHARS = " \t\r\n`"
_FENCE = re.compile(r"```[a-zA-Z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]+")


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
        return f"Error: I could not read your reply: {self.problem}. {REACT_FORMAT_HINT}"


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
        answer = _answer_after(text, marker.end())
        if not answer:
            return ParseError("'Answer:' was followed by nothing", text)
        return AnswerStep(thought, answer)
    return _action(text, marker, thought)


def _answer_after(text: str, start: int) -> str:
    """The answer text from ``start`` up to a line that begins another step (or the end).

    The rest of the marker's own line counts as a line ("Answer: Observation: ..." is no answer),
    and an Answer marker before any answer text is skipped ("Answer:\n**Final Answer:** 42").
    """
    while True:
        line_end = text.find("\n", start)
        line_end = len(text) if line_end == -1 else line_end
        run = _ANSWER_RUN.match(text, start, line_end)
        start = run.end() if run is not None else start
        stop = _STEP_HERE.match(text, start, line_end) or _ANSWER_END.search(text, start)
        answer = text[start : stop.start() if stop else len(text)].strip()
        if answer or stop is None or "answer" not in stop.group("kind").lower():
            return answer
        start = stop.start()  # only blank lines came before this Answer marker: skip it


def _unmarked(text: str) -> ReActStep:
    if _ACTION_INPUT.search(text):
        problem = "there was an 'Action Input:' but no 'Action:' line naming the tool"
        return ParseError(problem, text)
    if _THOUGHT.search(text):
        return ParseError("there was a Thought but no 'Action:' or 'Answer:' line", text)
    # An invented tool result ends the answer; a reply that opens with one (the model playing
    # the tool) has no answer at all, even inside a fence.
    answer = _answer_after(text, 0)
    if not answer.strip(_FENCE_CHARS):
        problem = "it began with 'Observation:', which only the tool writes, after your Action"
        return ParseError(problem, text)
    return AnswerStep("(implicit) answered without the Answer: marker", answer)


def _thought_before(text: str, end: int) -> str:
    head = text[:end]
    matches = list(_THOUGHT.finditer(head))
    body = head[matches[-1].end() :] if matches else head
    return " ".join(body.split())


_NO_ACTION = {"none", "n/a", "na", "no", "nothing", "null", "no_action", "no-action"}


def _action(text: str, marker: re.Match[str], thought: str) -> ReActStep:
    line_end = text.find("\n", marker.end())
    line = text[marker.end() : line_end if line_end != -1 else len(text)]
    name_match = _TOOL_NAME.search(line)
    if name_match is None:
        return ParseError("'Action:' did not name a tool", text)
    action = name_match.group(0).strip(".")
    if action.lower() in _NO_ACTION:  # "Action: None" followed by the answer
        answer = _ACTION_OR_ANSWER.search(text, marker.end())
        if answer is not None and "answer" in answer.group("kind").lower():
            reply = _answer_after(text, answer.end())
            if reply:
                return AnswerStep(thought, reply)
    input_marker = _ACTION_INPUT.search(text, marker.end())
    if input_marker is None:
        # "Action: tool {json}" or "Action: tool(...)" on one line, or a tool without arguments.
        inline = line[name_match.end() :].strip()
        if inline.startswith("(") and inline.endswith(")"):
            inline = inline[1:-1].strip()
        return ActionStep(thought, action, parse_action_input(inline) if inline else {})
    end = _ANSWER_END.search(text, input_marker.end())  # e.g. an invented Observation
    body = text[input_marker.end() : end.start() if end else len(text)]
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
    """Feed a streaming reply; get back only the final-answer text, as soon as it is safe.

    Text is released once the first Action/Answer marker turns out to be an Answer (nothing is
    released for an action). The answer ends where a Thought/Action/Observation line begins (a
    model running on past its answer), so a line that might still become such a marker is held
    back until it cannot. Leading whitespace is dropped and trailing whitespace held back: the
    text released by ``feed`` and ``finish`` together equals ``AnswerStep.answer`` whenever the
    whole reply parses as a marked answer.

    Markers only begin at a line start, so each chunk is looked at once: the scanner keeps just
    the current line while it may still become a marker (``_Pending``), and the unreleased
    whitespace. A pending line is looked at again only when a chunk adds a character that can
    change its fate, which happens a bounded number of times per line, so ``feed`` costs
    O(chunk) amortised, however long the reply or its lines (no rescanning of what came before).
    """

    def __init__(self) -> None:
        self._line: _Pending | None = _Pending()  # the line while it may become a marker
        self._answering = False  # the first marker was an Answer
        self._done = False  # an action was chosen, or the answer ended
        self._ready: list[str] = []  # answer text safe to release
        self._gap: list[str] = []  # whitespace after it, released only if more text follows
        self._started = False  # leading whitespace of the answer has been dropped

    @property
    def answering(self) -> bool:
        return self._answering

    def feed(self, chunk: str) -> str:
        """Add a chunk; return the answer text that became safe to show."""
        if self._done or not chunk:
            return ""
        if not self._answering:
            chunk = self._decide(chunk)
        if self._answering and chunk:
            self._scan_answer(chunk)
        return self._release(final=False)

    def finish(self) -> str:
        """The reply is complete: return the rest of the answer."""
        if not self._answering:
            return ""
        if not self._done and self._line is not None and not _ANSWER_END.match(self._line.core()):
            self._hold(self._line.text())  # (a repeated Answer marker with nothing after is not)
        self._line = None
        return self._release(final=True)

    def _decide(self, chunk: str) -> str:
        """Look for the first Action/Answer marker; return the text after an Answer marker."""
        pos = 0
        while pos < len(chunk):
            newline = chunk.find("\n", pos)
            if self._line is None:  # inside a line that cannot hold a marker: skip to its end
                if newline == -1:
                    return ""
                self._line, pos = _Pending(), newline + 1
                continue
            stop = len(chunk) if newline == -1 else newline + 1
            if not self._line.add(chunk[pos:stop]):
                return ""  # only markdown or spaces came: the line is as undecided as before
            core = self._line.core()
            marker = _ACTION_OR_ANSWER.match(core)
            # Wait for a character after the marker: "**Answer:*" may still grow into "**Answer:**".
            if marker is not None and (marker.end() < len(core) or stop < len(chunk)):
                if "answer" in marker.group("kind").lower():
                    self._answering, self._line = True, _Pending()  # its rest is a line to check
                    return core[marker.end() :] + chunk[stop:]
                self._done, self._line = True, None
                return ""
            if newline == -1:
                live = marker is not None or _may_become(core, _MARKER_WORDS)
                self._line = self._line if live else None
                return ""
            self._line, pos = _Pending(), stop
        return ""

    def _scan_answer(self, chunk: str) -> None:
        """Hold answer text, stopping at a line that starts another step; the text after the
        Answer marker counts as a line, and Answer markers before any answer text are skipped."""
        pos = 0
        while pos < len(chunk):
            newline = chunk.find("\n", pos)
            stop = len(chunk) if newline == -1 else newline + 1
            piece, pos = chunk[pos:stop], stop
            if self._line is None:  # rest of a line that cannot start another step
                self._hold(piece)
                self._line = None if newline == -1 else _Pending()
                continue
            if not self._line.add(piece):
                continue  # only markdown or spaces came: still undecided
            core = self._line.core()
            end = _ANSWER_END.match(core)
            if end is not None and (self._started or "answer" not in end.group("kind").lower()):
                self._done, self._line = True, None
                return
            if end is not None:
                run = _ANSWER_RUN.match(core)
                if run.end() == len(core) and newline == -1:
                    continue  # "**Answer:*" may still grow into "**Answer:**"
                self._line = _Pending()
                self._scan_answer(core[run.end() :])  # one line, opening with no Answer marker
                if self._done:
                    return
                continue
            if newline == -1 and _may_become(core, _END_WORDS):
                continue
            self._hold(self._line.text())
            self._line = _Pending() if newline != -1 else None

    def _hold(self, text: str) -> None:
        """Add answer text: leading whitespace dropped, trailing whitespace kept back."""
        if not self._started:
            text = text.lstrip()
            self._started = bool(text)
        body = text.rstrip()
        if body:
            self._ready += self._gap
            self._ready.append(body)
            self._gap.clear()
        if len(body) < len(text):
            self._gap.append(text[len(body) :])

    def _release(self, *, final: bool) -> str:
        ready = "".join(self._ready)
        self._ready.clear()
        if final:
            self._gap.clear()  # trailing whitespace of the answer is dropped
        return ready


_GAP_CHARS = " \t*_`"  # what may separate or follow marker words: adding it decides nothing


class _Pending:
    """The current line while it may become a marker, as parts joined only when looked at.

    Its lead (the markdown and spaces a marker may follow) is counted, not looked at again: a
    check reads the line without it, which gives the same match since marker words start with
    a letter. Lead characters, and gap characters after the lead, never make or unmake a
    marker, so adding only those needs no new look (a drill's 700k stars in small chunks).
    """

    __slots__ = ("parts", "lead", "in_lead")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.lead = 0
        self.in_lead = True

    def add(self, text: str) -> bool:
        """Add text to the line; whether the line must be looked at again."""
        self.parts.append(text)
        if self.in_lead:
            rest = text.lstrip(_LEAD_CHARS)
            self.lead += len(text) - len(rest)
            self.in_lead = not rest
            return bool(rest)
        return bool(text.strip(_GAP_CHARS))

    def text(self) -> str:
        joined = "".join(self.parts)
        self.parts = [joined]
        return joined

    def core(self) -> str:
        """The line without its lead."""
        return self.text()[self.lead :]


_MARKDOWN_LEAD = re.compile(_LEAD)
# Marker words as lowercase prefixes; "actioninput" because the regexes allow no separator.
_MARKER_WORDS = ("final answer", "finalanswer", "answer", "action")
_END_WORDS = ("thought", "action input", "actioninput", "observation", *_MARKER_WORDS)
# Letters that re.IGNORECASE matches to ASCII but str.lower() does not turn into them.
_CASE_TWINS = str.maketrans({"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"})


def _may_become(line: str, words: tuple[str, ...]) -> bool:
    """Whether an unfinished line could still grow into a marker made of one of ``words``."""
    core = _MARKDOWN_LEAD.sub("", line, count=1).rstrip(" \t*_`")
    text = re.sub(r"[ \t_]+", " ", core.translate(_CASE_TWINS).lower())
    return any(word.startswith(text) for word in words)
