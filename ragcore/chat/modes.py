"""The chat modes (LlamaIndex's ``ChatMode`` values) and ``chat_engine_from_index``.

``best`` picks for the configured LLM:

- a backend with native tool calls (it has ``chat_with_tools``, e.g. ``OpenAILLM``): the
  function-calling agent over the index tool and the caller's tools (LlamaIndex picks its
  OpenAI agent the same way);
- otherwise (the extractive backend, Ollama, any LLM without tool support):
  condense_plus_context, which always retrieves, needs no format discipline from the model, and
  handles follow-ups; if the caller passed extra ``tools``, react instead, since only an agent
  can use them.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Sequence

from ..errors import ConfigError
from ..llms.base import LLM, ToolCallingLLM
from ..retrieval import check_retrieval_mode


class ChatMode(str, Enum):
    """How a chat turn uses the index."""

    SIMPLE = "simple"
    CONDENSE_QUESTION = "condense_question"
    CONTEXT = "context"
    CONDENSE_PLUS_CONTEXT = "condense_plus_context"
    REACT = "react"
    BEST = "best"


CHAT_MODE_DESCRIPTIONS: dict[ChatMode, str] = {
    ChatMode.SIMPLE: "Chat with the model alone; the documents are not searched.",
    ChatMode.CONDENSE_QUESTION: (
        "Rewrite your message as a standalone question, then answer it from the documents "
        "with the chosen response mode."
    ),
    ChatMode.CONTEXT: (
        "Search the documents with your message as written and chat with the passages found."
    ),
    ChatMode.CONDENSE_PLUS_CONTEXT: (
        "Rewrite follow-ups as standalone questions, search with them, and chat with the "
        "passages found."
    ),
    ChatMode.REACT: (
        "An agent that decides when to search the documents (and use other tools), reasoning "
        "step by step."
    ),
    ChatMode.BEST: (
        "Pick for the model: a tool-calling agent if it supports tool calls, otherwise "
        "condense + context."
    ),
}

FUNCTION_CALLING = "function_calling"  # what ``best`` resolves to for tool-calling backends
INDEX_AGENT_PROMPT = (
    "You are a careful assistant for the user's documents. To answer questions about them, "
    "search with the search_documents tool instead of relying on memory, and answer from what "
    "it returns."
)


def parse_chat_mode(value: ChatMode | str) -> ChatMode:
    try:
        return ChatMode(value)
    except ValueError:
        choices = ", ".join(m.value for m in ChatMode)
        raise ConfigError(f"unknown chat_mode {value!r}: choose one of {choices}") from None


def best_chat_mode(llm: LLM, *, tools: Sequence[Any] = ()) -> str:
    """What ``best`` means for ``llm``: a ChatMode value, or "function_calling"."""
    if isinstance(llm, ToolCallingLLM) and getattr(llm, "model", "") != "extractive":
        return FUNCTION_CALLING
    return ChatMode.REACT.value if tools else ChatMode.CONDENSE_PLUS_CONTEXT.value


def chat_engine_from_index(
    index: Any,
    *,
    chat_mode: ChatMode | str = ChatMode.BEST,
    llm: LLM,
    similarity_top_k: int = 4,
    response_mode: str = "compact",
    node_postprocessors: Sequence[Any] = (),
    system_prompt: str | None = None,
    tools: Sequence[Any] = (),
    retrieval_mode: str = "similarity",
) -> Any:
    """A chat engine (or agent) over ``index``; every one answers ``.chat(message, memory)``.

    ``retrieval_mode`` is how the documents are searched: "similarity" (vectors, the default),
    "mmr", "keyword" (BM25) or "hybrid" (both fused), as in ``QueryEngine.from_index``.
    """
    mode = parse_chat_mode(chat_mode)
    if llm is None or not isinstance(llm, LLM):
        raise ConfigError(
            "chat_engine_from_index needs llm=: e.g. resolve_llm() (ragcore.llms.resolve) or "
            "ExtractiveLLM() to chat offline"
        )
    if isinstance(similarity_top_k, bool) or not isinstance(similarity_top_k, int):
        raise ConfigError(f"similarity_top_k ({similarity_top_k!r}) must be a positive integer")
    if similarity_top_k < 1:
        raise ConfigError(f"similarity_top_k ({similarity_top_k}) must be at least 1")
    check_retrieval_mode(retrieval_mode)
    kind = best_chat_mode(llm, tools=tools) if mode is ChatMode.BEST else mode.value
    if tools and kind not in (ChatMode.REACT.value, FUNCTION_CALLING):
        raise ConfigError(
            f"tools are only used by agents, not by chat_mode {mode.value!r}: "
            "use chat_mode='react' (or 'best')"
        )
    parts = _Parts(
        index, llm, similarity_top_k, response_mode, tuple(node_postprocessors), retrieval_mode
    )
    return _build(kind, parts, system_prompt=system_prompt, tools=tuple(tools))


class _Parts:
    """Builds the retriever and query engine an engine needs, on demand."""

    def __init__(self, index, llm, top_k, response_mode, postprocessors, retrieval_mode) -> None:
        self.index, self.llm, self.top_k = index, llm, top_k
        self.response_mode, self.postprocessors = response_mode, postprocessors
        self.retrieval_mode = retrieval_mode

    def retriever(self) -> Any:
        return self.index.as_retriever(similarity_top_k=self.top_k, mode=self.retrieval_mode)

    def query_engine(self) -> Any:
        from ..query import QueryEngine

        return QueryEngine.from_index(
            self.index,
            llm=self.llm,
            response_mode=self.response_mode,
            similarity_top_k=self.top_k,
            node_postprocessors=self.postprocessors,
            retrieval_mode=self.retrieval_mode,
        )

    def index_tools(self, tools: tuple) -> list:
        from ..tools import QueryEngineTool

        return [QueryEngineTool(self.query_engine()), *tools]


def _build(kind: str, parts: _Parts, *, system_prompt: str | None, tools: tuple) -> Any:
    from .condense import CondenseQuestionChatEngine
    from .context import CondensePlusContextChatEngine, ContextChatEngine
    from .simple import SimpleChatEngine

    llm = parts.llm
    if kind == ChatMode.SIMPLE.value:
        return SimpleChatEngine(llm, system_prompt=system_prompt)
    if kind == ChatMode.CONDENSE_QUESTION.value:
        return CondenseQuestionChatEngine(parts.query_engine(), llm=llm)
    if kind in (ChatMode.CONTEXT.value, ChatMode.CONDENSE_PLUS_CONTEXT.value):
        engine = ContextChatEngine if kind == ChatMode.CONTEXT.value else (
            CondensePlusContextChatEngine
        )
        return engine(
            parts.retriever(),
            llm=llm,
            system_prompt=system_prompt,
            node_postprocessors=parts.postprocessors,
        )
    if kind == ChatMode.REACT.value:
        from ..agent import ReActAgent

        prompt = system_prompt or INDEX_AGENT_PROMPT
        return ReActAgent.from_tools(parts.index_tools(tools), llm=llm, system_prompt=prompt)
    from ..agent import FunctionCallingAgent

    prompt = system_prompt or INDEX_AGENT_PROMPT
    return FunctionCallingAgent.from_tools(parts.index_tools(tools), llm=llm, system_prompt=prompt)
