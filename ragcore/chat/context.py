"""Context chat: retrieved passages in the system prompt, then the conversation.

``ContextChatEngine`` retrieves with the user's message as written (LlamaIndex's
ContextChatEngine); ``CondensePlusContextChatEngine`` first condenses the message into a
standalone question (skipped on the first turn) and retrieves with that, so a follow-up such as
"and what about its page count?" finds the right passages. Both then answer with the
``CONTEXT_CHAT`` system prompt (``ragcore.prompts.chat``) holding the passages, followed by the
history and the user's message as written.

The prompt follows ``ragcore.prompt_budget``'s rule: the system prompt and the user's message are
fixed; the passages come first among the flexible parts and are sure of ``context_share`` of the
room left, plus whatever the earlier conversation does not need; the conversation gets the rest.
Passages are kept best first while they fit, and a first passage too large on its own is cut
rather than dropped. ``source_nodes`` are the passages the model actually saw.

A backend that answers requests (the extractive one) gets the same as data: the message, the
passages and the conversation that fit (``AnswerRequest``, kind ``context_chat``).

The conversation an answer carries is its latest ``history_turns`` (by default
``ANSWER_TURNS``, the latest turn), within the memory's limit: the passages before it change every
turn, so the model reads whatever history it carries anew each time, and the memory's whole limit
made a long chat's answers read ~200 tokens more than the second's (issue 65). What a follow-up
refers to is in the latest turn (the rewrite reads the same), and the condensed question carries
it into the search. ``history_turns=None`` carries every turn the memory's limit holds
(LlamaIndex's behaviour).
"""

from __future__ import annotations

from typing import Sequence

from ..errors import ConfigError
from ..llms.base import LLM, answering, noting, stream_traced
from ..memory import ChatMemory
from ..postprocess import NodePostprocessor
from ..prompt_budget import PromptBudget, Room, truncate_to_tokens
from ..prompts import FIELD_MARGIN_TOKENS, message_tokens
from ..prompts.chat import CONTEXT_CHAT, NO_PASSAGES
from ..query import Retriever, apply_postprocessors
from ..streaming import or_empty_notice
from ..synthesis.budget import SEPARATOR, SEPARATOR_TOKENS, count_each
from ..synthesis.passages import prompt_text
from ..synthesis.response import AnswerCheck
from ..trace import Trace
from ..types import AnswerRequest, Message, ScoredNode
from .condense import condense_question
from .response import ChatResponse, remember_reply
from .turn import close_prompt, fixed_parts, history_need, start_turn

# The turns of the conversation an answer's prompt carries by default (see the module's doc).
ANSWER_TURNS = 1


class ContextChatEngine:
    """Retrieve with the user's message, put the passages in the system prompt, then chat."""

    mode = "context"

    def __init__(
        self,
        retriever: Retriever,
        *,
        llm: LLM,
        system_prompt: str | None = None,
        node_postprocessors: Sequence[NodePostprocessor] = (),
        context_share: float = 0.5,
        check: AnswerCheck | None = None,
        history_turns: int | None = ANSWER_TURNS,
    ) -> None:
        if not callable(getattr(retriever, "retrieve", None)):
            raise ConfigError(
                f"retriever must have .retrieve(query, trace=), got {type(retriever).__name__}: "
                "use index.as_retriever(similarity_top_k=...)"
            )
        if not isinstance(llm, LLM):
            raise ConfigError(f"llm must implement the LLM protocol, got {type(llm).__name__}")
        if not 0 < context_share < 1:
            raise ConfigError(f"context_share ({context_share}) must be between 0 and 1")
        if history_turns is not None and history_turns < 0:
            raise ConfigError(f"history_turns ({history_turns}) must be 0 or more, or None")
        self.retriever = retriever
        self.llm = llm
        self.system_prompt = system_prompt
        self.node_postprocessors = tuple(node_postprocessors)
        self.context_share = context_share
        self.check = check  # what a person is shown of each reply (ChatResponse.shown)
        self.history_turns = history_turns

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        trace = Trace() if trace is None else trace
        start_turn(memory, message)
        query = self._search_query(message, memory, trace)
        nodes = self.retriever.retrieve(query, trace=trace)
        trace.tell_found(nodes)
        nodes = apply_postprocessors(self.node_postprocessors, nodes, query, trace)
        messages, request, used = self._prompt(nodes, message, memory, trace)
        llm = answering(noting(self.llm, trace.notes), request)
        return ChatResponse(
            lambda: or_empty_notice(stream_traced(llm, messages, trace, "context chat"),
                                    trace.notes),
            trace=trace,
            source_nodes=used,
            on_complete=remember_reply(memory),
            mode=self.mode,
            check=self.check,
            question=query,
        )

    def _search_query(self, message: str, memory: ChatMemory, trace: Trace) -> str:
        return message

    def _prompt(
        self, nodes: list[ScoredNode], message: str, memory: ChatMemory, trace: Trace
    ) -> tuple[list[Message], AnswerRequest, list[ScoredNode]]:
        """System prompt with the passages that fit, the history that fits, the message; and
        the request they make."""
        empty = message_tokens(self._system_message(NO_PASSAGES))
        fixed = fixed_parts(empty, message)
        room = PromptBudget.of(self.llm).room(fixed, prompt="the context chat prompt")
        later = history_need(memory, message, turns=self.history_turns)
        context, used = self._pack(nodes, room, later, trace)
        system = self._system_message(context or NO_PASSAGES)
        room.take(message_tokens(system) - empty)
        conversation = close_prompt(memory, message, room, turns=self.history_turns)
        room.record(trace, "context chat")
        request = AnswerRequest("context_chat", message, (context,) if context else (),
                                conversation=conversation[:-1])
        return [system, *conversation], request, used

    def _pack(
        self, nodes: list[ScoredNode], room: Room, later: int, trace: Trace
    ) -> tuple[str, list[ScoredNode]]:
        texts = [prompt_text(n.node).strip() for n in nodes]
        counts = count_each(texts)
        need = sum(counts) + SEPARATOR_TOKENS * len(counts) + 2 * FIELD_MARGIN_TOKENS
        budget = room.offer(need, share=self.context_share, later=later) - 2 * FIELD_MARGIN_TOKENS
        with trace.stage("pack context", passages_in=len(nodes), budget=budget) as detail:
            context, used = pack_passages(nodes, budget, texts=texts, counts=counts)
            detail["passages_used"] = len(used)
        if len(used) < len(nodes):
            room.note(f"passages: {len(used)} of {len(nodes)} kept ({budget:,} tokens)")
        return context, used

    def _system_message(self, context: str) -> Message:
        text = CONTEXT_CHAT.format(context=context)[0].content
        if self.system_prompt:
            text = f"{self.system_prompt.strip()}\n\n{text}"
        return Message("system", text)


class CondensePlusContextChatEngine(ContextChatEngine):
    """Condense the message into a standalone question, retrieve with it, then chat."""

    mode = "condense_plus_context"

    def _search_query(self, message: str, memory: ChatMemory, trace: Trace) -> str:
        return condense_question(self.llm, memory, message, trace=trace)


def pack_passages(
    nodes: list[ScoredNode],
    budget: int,
    *,
    texts: list[str] | None = None,
    counts: list[int] | None = None,
) -> tuple[str, list[ScoredNode]]:
    """The passages that fit ``budget`` tokens, best first, and the nodes they came from.

    ``texts`` and ``counts`` are the nodes' text as the model reads it (``prompt_text``: a
    Markdown source's HTML read as its text) and its tokens, when already known.
    """
    if texts is None:
        texts = [prompt_text(n.node).strip() for n in nodes]
    counts = count_each(texts) if counts is None else counts
    kept: list[str] = []
    used: list[ScoredNode] = []
    spent = 0
    for node, text, count in zip(nodes, texts, counts):
        cost = count + (SEPARATOR_TOKENS if kept else 0)
        if spent + cost <= budget:
            kept.append(text)
            used.append(node)
            spent += cost
        elif not kept and budget > 0:
            cut, _ = truncate_to_tokens(text, budget)
            kept.append(cut)
            used.append(node)
            break
        else:
            break
    return SEPARATOR.join(kept), used
