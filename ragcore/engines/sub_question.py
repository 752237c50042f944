"""Sub-questions: a question that spans sources ("compare A and B") split into one question
per source, each answered by its own engine, the answers then combined (LlamaIndex's
``SubQuestionQueryEngine``).

The plan is written without I/O: ``sub_question_messages`` describes the engines (name and
description) and asks for a JSON list of ``{"sub_question": ..., "tool_name": ...}`` (the
prompt is ``ragcore.prompts.retrieval.SUB_QUESTION``); ``parse_sub_questions`` reads it
tolerantly (code fences, text around the list, unknown tool
names dropped). The driver asks each engine its sub-question, makes each answer a node
("Sub question: ... / Response: ...") and synthesizes the final answer from those nodes.
When the LLM writes no usable plan (and always with the offline extractive backend) every
engine is asked the question itself, which still compares the sources; the trace says so.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Sequence

from ..errors import ConfigError
from ..llms.base import LLM, complete_traced, writes_free_text
from ..prompts.retrieval import SUB_QUESTION
from ..synthesis import Response, ResponseMode, Synthesizer
from ..tools import QueryEngineTool
from ..trace import Trace
from ..types import Message, Node, ScoredNode

_ARRAY = re.compile(r"\[.*\]", re.DOTALL)


def sub_question_messages(question: str, tools: Sequence[QueryEngineTool]) -> list[Message]:
    listed = "\n".join(f"- {t.metadata.name}: {t.metadata.description}" for t in tools)
    return SUB_QUESTION.format(tools=listed, question=question)


def parse_sub_questions(reply: str, tool_names: Sequence[str]) -> list[tuple[str, str]]:
    """(sub_question, tool_name) pairs from the reply; items naming no known tool dropped."""
    found = _ARRAY.search(reply)
    if found is None:
        return []
    try:
        items = json.loads(found.group())
    except ValueError:
        return []
    pairs = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        question, tool = item.get("sub_question"), item.get("tool_name")
        if isinstance(question, str) and question.strip() and tool in tool_names:
            pairs.append((question.strip(), tool))
    return pairs


class SubQuestionQueryEngine:
    """Splits a question across query engines and combines their answers."""

    def __init__(
        self,
        query_engine_tools: Sequence[QueryEngineTool],
        *,
        llm: LLM,
        response_mode: ResponseMode | str = ResponseMode.COMPACT,
    ) -> None:
        tools = list(query_engine_tools)
        if not tools or not all(isinstance(t, QueryEngineTool) for t in tools):
            raise ConfigError("SubQuestionQueryEngine needs QueryEngineTools, one per source")
        names = [t.metadata.name for t in tools]
        if len(set(names)) != len(names):
            raise ConfigError(f"tool names must differ, got {names}: pass name= to each tool")
        self.tools = {t.metadata.name: t for t in tools}
        self.llm = llm
        self.synthesizer = Synthesizer(llm, response_mode=response_mode)

    def plan(self, question: str, trace: Trace | None = None) -> list[tuple[str, str]]:
        """The (sub_question, tool_name) pairs to ask."""
        every = [(question, name) for name in self.tools]
        if not writes_free_text(self.llm):
            _note(trace, "the extractive backend writes no sub-questions: each source was "
                         "asked the question itself")
            return every
        reply = complete_traced(self.llm, sub_question_messages(question, list(
            self.tools.values())), trace, "sub-questions")
        pairs = parse_sub_questions(reply, list(self.tools))
        if not pairs:
            _note(trace, "the model's plan was not a usable JSON list: each source was asked "
                         "the question itself")
        return pairs or every

    def query(self, question: str, *, trace: Trace | None = None) -> Response:
        trace = Trace() if trace is None else trace
        pairs = self.plan(question, trace)
        trace.notes["sub_questions"] = [{"sub_question": q, "tool": t} for q, t in pairs]
        nodes = [self._answer(q, t, trace) for q, t in pairs]
        response = self.synthesizer.synthesize(question, nodes, trace=trace)
        response.metadata["sub_questions"] = pairs
        return response

    def _answer(self, question: str, tool_name: str, trace: Trace) -> ScoredNode:
        answer = self.tools[tool_name].query_engine.query(question, trace=trace)
        text = f"Sub question: {question}\nResponse: {answer.text}"
        digest = hashlib.sha256(f"{tool_name}\n{question}".encode()).hexdigest()[:16]
        node = Node(text, node_id=f"sub-{digest}", metadata={"tool": tool_name},
                    excluded_llm_metadata_keys=["tool"])
        return ScoredNode(node, None)


def _note(trace: Any, text: str) -> None:
    if trace is not None:
        trace.notes["sub_question_plan"] = text
