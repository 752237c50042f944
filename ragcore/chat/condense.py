"""Condense question: rewrite the latest message into a standalone question, then query.

``condense_question`` is shared with condense_plus_context. Only a message that refers back
(``follow_up.refers_back``: "and what about its page count?") is rewritten: the LLM (the
``CONDENSE`` prompt of ``ragcore.prompts.chat``) turns it into a question that makes sense alone,
reading only the latest turn (within ``CONDENSE_HISTORY_TOKENS``), so the rewrite
costs the same at the twentieth question as at the second and lands on the latest turn's subject
unless the message names another. A question that stands on its own, or the first of a
conversation, is searched as written with no LLM call (``trace.notes["condense_skipped"]`` says
why): nothing a person wrote is reworded, and Regenerate asks it again as it was. A rewrite that
is empty, repeats the prompt back, or is far longer than the message is not used: the message
is, and ``trace.notes["condense_rejected"]`` says why. The question used is always in
``trace.notes["condensed_question"]``.

``CondenseQuestionChatEngine`` then answers that question with a ``QueryEngine`` (any response
mode) and streams its answer; the query engine's retrieval and synthesis go into the same trace.
A ``system_prompt`` leads every prompt of that answer (``Synthesizer.with_system_prompt``).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from ..errors import ConfigError
from ..llms.base import LLM, answering, complete_traced, stopping_at
from ..memory import ChatMemory
from ..prompt_budget import PromptBudget
from ..prompts import CONVERSATION, FOLLOW_UP, STANDALONE_QUESTION
from ..prompts.chat import CONDENSE, format_history
from ..synthesis import Synthesizer
from ..tokens import count_tokens
from ..trace import Trace
from ..types import AnswerRequest, Message
from .follow_up import refers_back
from .response import ChatResponse, remember_reply
from .turn import close_prompt, start_turn

_CUE = re.compile(r"^\s*" + re.escape(STANDALONE_QUESTION) + r"\s*", re.IGNORECASE)
# A standalone question may spell out what a short follow-up refers to, so it may be longer than
# the message, but not by this much: beyond it the model is answering or rambling.
MAX_GROWTH = 4
MAX_GROWTH_SLACK = 48  # tokens always allowed beyond the message's own length
# What the rewrite reads of the conversation: the latest turn (its question whole, its reply cut
# in the middle when long), not the chat so far, which made the 19th rewrite of issue 65 read
# ~1,200 tokens (69 s) and land on the first question's subject.
CONDENSE_HISTORY_TOKENS = 160


def condense_question(llm: LLM, memory: ChatMemory, message: str, *, trace: Trace | None) -> str:
    """``message`` as a standalone question given the latest turn in ``memory`` (no call when
    there is none, or when the message does not refer back to it)."""
    room = PromptBudget.of(llm).room(
        {"condense prompt and message": CONDENSE.tokens_with(question=message)},
        prompt="the condense prompt",
    )
    earlier = close_prompt(memory, message, room, most=CONDENSE_HISTORY_TOKENS)[:-1]
    history = latest_turn([m for m in earlier if m.role in ("user", "assistant") and m.content])
    reason = refers_back(message) if history else ""
    if not reason:
        question = message
        if trace is not None:
            trace.notes["condense_skipped"] = ("the question stands on its own" if history
                                               else "first message of the conversation")
    else:
        prompt = CONDENSE.format(history=format_history(history), question=message)
        request = AnswerRequest("condense", message, conversation=history)
        room.record(trace, "condense")
        if trace is not None:
            trace.notes["follow_up"] = reason
        # One line: a rewrite, never an answer that runs on.
        rewriter = stopping_at(answering(llm, request), ["\n"])
        reply = complete_traced(rewriter, prompt, trace, "condense")
        question = _checked(_clean(reply), message, trace)
    if trace is not None:
        trace.notes["condensed_question"] = question
    return question


def latest_turn(messages: list[Message]) -> list[Message]:
    """The last turn of ``messages``: from the last user message on."""
    starts = [at for at, m in enumerate(messages) if m.role == "user"]
    return messages[starts[-1]:] if starts else messages


def _clean(reply: str) -> str:
    text = _CUE.sub("", reply.strip())
    text = " ".join(text.split())
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


def _checked(question: str, message: str, trace: Trace | None) -> str:
    """``question``, or ``message`` when the rewrite cannot be trusted (noted in the trace)."""
    problem = ""
    if not question:
        problem = "the model's rewrite was empty"
    elif CONVERSATION in question or FOLLOW_UP in question:
        problem = "the model repeated the prompt instead of rewriting the question"
    elif count_tokens(question) > MAX_GROWTH * count_tokens(message) + MAX_GROWTH_SLACK:
        problem = "the model's rewrite was far longer than the message"
    if not problem:
        return question
    if trace is not None:
        trace.notes["condense_rejected"] = f"{problem}; the message was used as written"
    return message


class CondenseQuestionChatEngine:
    """Rewrite the message as a standalone question, then answer it with a query engine."""

    mode = "condense_question"

    def __init__(
        self, query_engine: Any, *, llm: LLM, system_prompt: str | None = None
    ) -> None:
        if not callable(getattr(query_engine, "query", None)):
            raise ConfigError(
                f"query_engine must have .query(question, trace=), got "
                f"{type(query_engine).__name__}: use index.as_query_engine(llm=...)"
            )
        if not isinstance(llm, LLM):
            raise ConfigError(f"llm must implement the LLM protocol, got {type(llm).__name__}")
        self.query_engine = _with_system_prompt(query_engine, system_prompt)
        self.llm = llm
        self.system_prompt = system_prompt

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        trace = Trace() if trace is None else trace
        start_turn(memory, message)
        question = condense_question(self.llm, memory, message, trace=trace)
        response = self.query_engine.query(question, trace=trace)
        return ChatResponse(
            lambda: response,
            trace=trace,
            source_nodes=list(response.source_nodes),
            on_complete=remember_reply(memory),
            mode=self.mode,
            check=getattr(response, "check", None),  # the query engine's, as for its answers
            question=question,
        )


def _with_system_prompt(query_engine: Any, system_prompt: str | None) -> Any:
    """A copy of ``query_engine`` whose synthesizer puts ``system_prompt`` first."""
    if not system_prompt or not system_prompt.strip():
        return query_engine
    synthesizer = getattr(query_engine, "synthesizer", None)
    if not isinstance(synthesizer, Synthesizer):
        raise ConfigError(
            f"system_prompt needs a query engine that answers with a Synthesizer (its "
            f".synthesizer); {type(query_engine).__name__} has none: leave system_prompt out "
            "or pass a QueryEngine"
        )
    engine = copy.copy(query_engine)
    engine.synthesizer = synthesizer.with_system_prompt(system_prompt)
    return engine
