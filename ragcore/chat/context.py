"""Context chat: retrieved passages in the system prompt, then the conversation.

``ContextChatEngine`` retrieves with the user's message as written (LlamaIndex's
ContextChatEngine); ``CondensePlusContextChatEngine`` first condenses the message into a
standalone question (skipped on the first turn) and retrieves with that, so a follow-up such as
"and what about its page count?" finds the right passages. Both then answer with the
``CONTEXT_CHAT`` system prompt (``ragcore.prompts``) holding the passages, followed by the history
and the user's message as written.

The passages get at most ``context_share`` of what the window leaves after the reply reserve, so
the conversation always has room; passages are kept best first while they fit, and a first
passage too large on its own is cut rather than dropped. ``source_nodes`` are the passages the
model actually saw.
"""

from __future__ import annotations

from typing import Sequence

from ..errors import ConfigError
from ..llms.base import LLM, stream_traced
from ..memory import ChatMemory
from ..postprocess import NodePostprocessor
from ..prompts import CONTEXT_CHAT
from ..query import Retriever, apply_postprocessors
from ..synthesis.budget import SEPARATOR, SEPARATOR_TOKENS, count_each, truncate_to_tokens
from ..trace import Trace
from ..types import Message, MetadataMode, ScoredNode
from .condense import condense_history, condense_question
from .response import ChatResponse, remember_reply
from .turn import fitted_history, prompt_tokens, start_turn


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
        self.retriever = retriever
        self.llm = llm
        self.system_prompt = system_prompt
        self.node_postprocessors = tuple(node_postprocessors)
        self.context_share = context_share

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        trace = Trace() if trace is None else trace
        start_turn(memory, message)
        return self._answer(self._search_query(message, memory, trace), memory, trace)

    def _search_query(self, message: str, memory: ChatMemory, trace: Trace) -> str:
        return message

    def _answer(self, query: str, memory: ChatMemory, trace: Trace) -> ChatResponse:
        nodes = self.retriever.retrieve(query, trace=trace)
        nodes = apply_postprocessors(self.node_postprocessors, nodes, query, trace)
        system, used = self._system_message(nodes, trace)
        history = fitted_history(memory, self.llm, prefix_tokens=prompt_tokens([system]))
        messages = [system, *history]
        return ChatResponse(
            lambda: stream_traced(self.llm, messages, trace, "context chat"),
            trace=trace,
            source_nodes=used,
            on_complete=remember_reply(memory),
            mode=self.mode,
        )

    def _system_message(self, nodes: list[ScoredNode], trace: Trace) -> tuple[Message, list]:
        fixed = CONTEXT_CHAT.fixed_tokens()
        if self.system_prompt:
            fixed += prompt_tokens([Message("system", self.system_prompt)])
        available = self.llm.context_window - self.llm.num_output - fixed
        budget = int(available * self.context_share)
        with trace.stage("pack context", passages_in=len(nodes), budget=budget) as detail:
            context, used = pack_passages(nodes, budget)
            detail["passages_used"] = len(used)
        text = CONTEXT_CHAT.format(context=context or "(no passages were found)")[0].content
        if self.system_prompt:
            text = f"{self.system_prompt.strip()}\n\n{text}"
        return Message("system", text), used


class CondensePlusContextChatEngine(ContextChatEngine):
    """Condense the message into a standalone question, retrieve with it, then chat."""

    mode = "condense_plus_context"

    def _search_query(self, message: str, memory: ChatMemory, trace: Trace) -> str:
        history = condense_history(memory, self.llm, message)
        return condense_question(self.llm, history, message, trace=trace)


def pack_passages(nodes: list[ScoredNode], budget: int) -> tuple[str, list[ScoredNode]]:
    """The passages that fit ``budget`` tokens, best first, and the nodes they came from."""
    texts = [n.node.content(MetadataMode.LLM).strip() for n in nodes]
    counts = count_each(texts)
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
