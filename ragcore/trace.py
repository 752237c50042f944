"""The per-answer trace: stages with timings and every LLM call, passed explicitly.

A ``Trace`` is created by the caller (CLI, app, test) and handed to a query or chat call, which
records into it. There is no global collector. Recording is cheap (a few dataclasses per call),
so engines always accept one; ``Trace.disabled()`` is never needed: pass ``None`` to skip.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .prompts import message_tokens
from .tokens import count_tokens
from .types import Message


@dataclass(slots=True)
class Stage:
    """A timed step: 'embed query', 'retrieve', a postprocessor, an LLM call, a tool call."""

    name: str
    seconds: float
    detail: dict[str, Any] = field(default_factory=dict)
    # when it began, in seconds since the trace was made: a stage within another (an LLM call
    # inside "span choice") is told apart, so the time is not counted twice
    start: float | None = None


@dataclass(slots=True)
class LLMCall:
    """One request to a language model and its reply."""

    purpose: str  # e.g. "qa", "refine", "tree_summarize level 1", "condense", "react step 2"
    messages: list[Message]
    reply: str
    tokens_in: int
    tokens_out: int
    seconds: float
    model: str = ""


@dataclass(slots=True)
class Trace:
    """What happened while one answer was made."""

    stages: list[Stage] = field(default_factory=list)
    llm_calls: list[LLMCall] = field(default_factory=list)
    notes: dict[str, Any] = field(default_factory=dict)  # e.g. condensed question, react steps
    # Told the passages the moment a search returns them, before they are cut to what the
    # model reads (a page shows them at once: the first thing a person sees); not saved.
    found: Callable[[list[Any]], None] | None = field(default=None, repr=False, compare=False)
    began: float = field(default_factory=time.perf_counter, repr=False, compare=False)

    def tell_found(self, nodes: list[Any]) -> None:
        """The passages a search just returned, to ``found`` if anyone listens."""
        if self.found is not None:
            self.found(list(nodes))

    @contextmanager
    def stage(self, name: str, **detail: Any) -> Iterator[dict[str, Any]]:
        """Time a block; the yielded dict can be filled with details while it runs."""
        start = time.perf_counter()
        try:
            yield detail
        finally:
            self.stages.append(Stage(name, time.perf_counter() - start, detail,
                                     start - self.began))

    def record_llm_call(
        self, purpose: str, messages: list[Message], reply: str, seconds: float, *, model: str = ""
    ) -> None:
        """Record one finished LLM call (tokens counted like a chat prompt) and its stage."""
        self.llm_calls.append(
            LLMCall(
                purpose=purpose,
                messages=list(messages),
                reply=reply,
                tokens_in=sum(map(message_tokens, messages)),
                tokens_out=count_tokens(reply),
                seconds=seconds,
                model=model,
            )
        )
        self.stages.append(Stage(f"llm: {purpose}", seconds,
                                 start=time.perf_counter() - seconds - self.began))

    @property
    def total_tokens_in(self) -> int:
        return sum(c.tokens_in for c in self.llm_calls)

    @property
    def total_tokens_out(self) -> int:
        return sum(c.tokens_out for c in self.llm_calls)

    @property
    def total_seconds(self) -> float:
        """From the first stage's start to the last one's end (the stages' sum for stages
        recorded without a start)."""
        starts = [s.start for s in self.stages]
        if not starts or None in starts:
            return sum(s.seconds for s in self.stages)
        return max(s.start + s.seconds for s in self.stages) - min(starts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "stages": [
                {"name": s.name, "seconds": s.seconds, "detail": _jsonable(s.detail),
                 **({} if s.start is None else {"start": round(s.start, 4)})}
                for s in self.stages
            ],
            "llm_calls": [
                {
                    "purpose": c.purpose,
                    "model": c.model,
                    "messages": [m.to_dict() for m in c.messages],
                    "reply": c.reply,
                    "tokens_in": c.tokens_in,
                    "tokens_out": c.tokens_out,
                    "seconds": c.seconds,
                }
                for c in self.llm_calls
            ],
            "notes": _jsonable(self.notes),
        }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def traced_stream(
    chunks: Iterable[str],
    messages: list[Message],
    trace: Trace | None,
    purpose: str,
    model: str = "",
) -> Iterator[str]:
    """Pass an LLM's chunks through, recording the call in ``trace`` once the stream ends.

    The call is recorded even if the consumer stops early or the stream fails, so a trace
    shows the partial reply of a call that broke.
    """
    start = time.perf_counter()
    parts: list[str] = []
    try:
        for chunk in chunks:
            parts.append(chunk)
            yield chunk
    finally:
        if trace is not None:
            seconds = time.perf_counter() - start
            trace.record_llm_call(purpose, messages, "".join(parts), seconds, model=model)
