"""Routing: one question, several query engines; a selector picks the engine to answer it
(LlamaIndex's ``RouterQueryEngine`` with a single selector).

Each engine comes as a ``QueryEngineTool``, whose description says what it knows. Two
selectors, one per way of choosing:

- ``LLMSingleSelector``: the LLM reads the numbered descriptions and names one
  (``selection_messages`` / ``parse_selection`` are the no-I/O plan, the prompt is
  ``ragcore.prompts.retrieval.ROUTER``; the first number in range wins, and a reply without
  one falls back to the first engine, noted in the trace);
- ``EmbeddingSingleSelector``: the description most similar to the question by the
  embedder, with no LLM call (what works with the offline extractive backend, which cannot
  choose).

The trace notes the route (``trace.notes["route"]``: engine, reason); the chosen engine's
stages follow in the same trace.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, Sequence

import numpy as np

from ..errors import ConfigError
from ..llms.base import LLM, complete_traced, writes_free_text
from ..prompts.retrieval import ROUTER
from ..synthesis import Response
from ..tools import QueryEngineTool
from ..trace import Trace
from ..types import Message

_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class Selection:
    """The chosen choice (0-based) and why."""

    index: int
    reason: str


class Selector(Protocol):
    def select(self, choices: Sequence[str], query: str, *, trace: Trace | None = None
               ) -> Selection: ...


def selection_messages(choices: Sequence[str], query: str) -> list[Message]:
    listed = "\n".join(f"({i}) {text}" for i, text in enumerate(choices, start=1))
    return ROUTER.format(choices=listed, query=query)


def parse_selection(reply: str, count: int) -> Selection | None:
    """The first number of the reply that names a choice, with the reply as the reason."""
    for match in _NUMBER.finditer(reply):
        number = int(match.group())
        if 1 <= number <= count:
            return Selection(number - 1, reply.strip())
    return None


class LLMSingleSelector:
    """The LLM chooses by reading the descriptions."""

    def __init__(self, *, llm: LLM) -> None:
        if not writes_free_text(llm):
            raise ConfigError("the extractive backend cannot choose between engines: use "
                              "EmbeddingSingleSelector(embedder=...) or a language model")
        self.llm = llm

    def select(self, choices: Sequence[str], query: str, *, trace: Trace | None = None
               ) -> Selection:
        reply = complete_traced(self.llm, selection_messages(choices, query), trace, "route")
        chosen = parse_selection(reply, len(choices))
        if chosen is None:
            return Selection(0, f"the model named no choice ({reply.strip()[:80]!r}): first one")
        return chosen


class EmbeddingSingleSelector:
    """The description nearest to the question by meaning; no LLM call."""

    def __init__(self, *, embedder: Any) -> None:
        if not callable(getattr(embedder, "embed_batch", None)):
            raise ConfigError(f"embedder must embed texts (embed_batch), got {embedder!r}")
        self.embedder = embedder

    def select(self, choices: Sequence[str], query: str, *, trace: Trace | None = None
               ) -> Selection:
        vectors = np.asarray(self.embedder.embed_batch([query, *choices]), dtype=np.float32)
        scores = vectors[1:] @ vectors[0]
        best = int(np.argmax(scores))
        return Selection(best, f"most similar description (cosine {float(scores[best]):.3f})")


class RouterQueryEngine:
    """Answers with the query engine the selector picks for each question."""

    def __init__(self, query_engine_tools: Sequence[QueryEngineTool], *, selector: Selector
                 ) -> None:
        tools = list(query_engine_tools)
        if not tools or not all(isinstance(t, QueryEngineTool) for t in tools):
            raise ConfigError("RouterQueryEngine needs QueryEngineTools (each a query engine "
                              "with a description of what it knows)")
        if not callable(getattr(selector, "select", None)):
            raise ConfigError(f"selector must have select(choices, query), got {selector!r}")
        self.tools = tools
        self.selector = selector

    def query(self, question: str, *, trace: Trace | None = None) -> Response:
        trace = Trace() if trace is None else trace
        choices = [t.metadata.description for t in self.tools]
        with trace.stage("route", choices=len(choices)) as detail:
            chosen = self.selector.select(choices, question, trace=trace)
            tool = self.tools[chosen.index]
            detail["engine"] = tool.metadata.name
        trace.notes["route"] = {"engine": tool.metadata.name, "reason": chosen.reason}
        response = tool.query_engine.query(question, trace=trace)
        response.metadata["selector_result"] = chosen
        return response
