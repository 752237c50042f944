"""Condense question: rewrite the latest message into a standalone question, then query.

``condense_question`` is shared with condense_plus_context: it asks the LLM (the ``CONDENSE``
prompt of ``ragcore.prompts``) to turn a follow-up such as "and what about its page count?" into
a question that makes sense alone, using the conversation so far. With no earlier conversation the
message is already standalone and no LLM call is made. The question used is always in
``trace.notes["condensed_question"]``.

``CondenseQuestionChatEngine`` then answers that question with a ``QueryEngine`` (any response
mode) and streams its answer; the query engine's retrieval and synthesis go into the same trace.
"""

from __future__ import annotations

import re
from typing import Any

from ..errors import ConfigError
from ..llms.base import LLM, complete_traced
from ..memory import ChatMemory
from ..prompts import CONDENSE, STANDALONE_QUESTION, format_history
from ..trace import Trace
from ..types import Message
from .response import ChatResponse, remember_reply
from .turn import earlier_history, fitted_history, start_turn

_CUE = re.compile(r"^\s*" + re.escape(STANDALONE_QUESTION) + r"\s*", re.IGNORECASE)


def condense_question(
    llm: LLM, history: list[Message], message: str, *, trace: Trace | None
) -> str:
    """``message`` as a standalone question given ``history`` (no call when history is empty)."""
    earlier = [m for m in history if m.role in ("user", "assistant") and m.content]
    if not earlier:
        question = message
        if trace is not None:
            trace.notes["condense_skipped"] = "first message of the conversation"
    else:
        prompt = CONDENSE.format(history=format_history(earlier), question=message)
        reply = complete_traced(llm, prompt, trace, "condense")
        question = _clean(reply) or message
    if trace is not None:
        trace.notes["condensed_question"] = question
    return question


def _clean(reply: str) -> str:
    text = _CUE.sub("", reply.strip())
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def condense_history(memory: ChatMemory, llm: LLM, message: str) -> list[Message]:
    """The conversation before ``message`` that fits in a condense prompt."""
    history = fitted_history(memory, llm, prefix_tokens=CONDENSE.tokens_with(question=message))
    return earlier_history(history, message)


class CondenseQuestionChatEngine:
    """Rewrite the message as a standalone question, then answer it with a query engine."""

    mode = "condense_question"

    def __init__(self, query_engine: Any, *, llm: LLM) -> None:
        if not callable(getattr(query_engine, "query", None)):
            raise ConfigError(
                f"query_engine must have .query(question, trace=), got "
                f"{type(query_engine).__name__}: use index.as_query_engine(llm=...)"
            )
        if not isinstance(llm, LLM):
            raise ConfigError(f"llm must implement the LLM protocol, got {type(llm).__name__}")
        self.query_engine = query_engine
        self.llm = llm

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        trace = Trace() if trace is None else trace
        start_turn(memory, message)
        history = condense_history(memory, self.llm, message)
        question = condense_question(self.llm, history, message, trace=trace)
        response = self.query_engine.query(question, trace=trace)
        return ChatResponse(
            lambda: response,
            trace=trace,
            source_nodes=list(response.source_nodes),
            on_complete=remember_reply(memory),
            mode=self.mode,
        )
