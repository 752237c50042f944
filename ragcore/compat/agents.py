"""LlamaIndex's agent constructors: ``ReActAgent.from_tools``, ``FunctionCallingAgent.from_tools``
and ``OpenAIAgent.from_tools`` give a ``ChatSession`` over ragcore's stateless agent.

A LlamaIndex agent owns its memory (``agent.chat("...")``); ragcore's agents take the memory
on each call, so the session holds it. ``llm`` defaults to ``Settings.llm``, then to
``resolve_llm()``; ``verbose=True`` writes each step to stdout as it happens.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..agent import FunctionCallingAgent as _FunctionCalling
from ..agent import ReActAgent as _ReAct
from ..chat.session import ChatSession
from ..engines.from_index import default_llm
from ..memory import ChatMemory
from .refusals import refuse
from .settings import Settings

_HINTS = {
    "react_chat_formatter": "ragcore's ReAct prompt is fixed (ragcore.agent.react_format)",
    "output_parser": "ragcore's ReAct parser is fixed and tolerant (ragcore.agent.react_parser)",
    "callback_manager": "pass trace=Trace() to chat() and read trace.notes['reasoning']",
    "tool_retriever": "pass the tools themselves",
    "context": "put it in system_prompt=",
    "prefix_messages": "put them in system_prompt= or chat_history=",
}


def _session(kind: type, tools: Sequence[Any] | None, llm: Any, options: dict[str, Any],
             call: str) -> ChatSession:
    options = dict(options)
    memory: ChatMemory | None = options.pop("memory", None)
    history = options.pop("chat_history", None)
    known = {k: options.pop(k) for k in list(options)
             if k in ("verbose", "max_iterations", "system_prompt")}
    refuse(call, options, _HINTS)
    llm = default_llm(llm or Settings.llm, "an agent")
    session = ChatSession(kind.from_tools(list(tools or ()), llm=llm, **known), memory=memory)
    if history is not None:
        session.set_history(history)
    return session


class ReActAgent:
    """``ReActAgent.from_tools(tools, llm=..., verbose=True)``: a ReAct agent session."""

    @classmethod
    def from_tools(cls, tools: Sequence[Any] | None = None, llm: Any = None,
                   **options: Any) -> ChatSession:
        return _session(_ReAct, tools, llm, options, "ReActAgent.from_tools")


class FunctionCallingAgent:
    """``FunctionCallingAgent.from_tools(tools, llm=...)``: a native tool-calling agent
    session (the LLM must support tool calls, e.g. ``OpenAI``)."""

    @classmethod
    def from_tools(cls, tools: Sequence[Any] | None = None, llm: Any = None,
                   **options: Any) -> ChatSession:
        return _session(_FunctionCalling, tools, llm, options, "FunctionCallingAgent.from_tools")


class OpenAIAgent(FunctionCallingAgent):
    """LlamaIndex 0.9's ``OpenAIAgent``: the function-calling agent."""

    @classmethod
    def from_tools(cls, tools: Sequence[Any] | None = None, llm: Any = None,
                   **options: Any) -> ChatSession:
        return _session(_FunctionCalling, tools, llm, options, "OpenAIAgent.from_tools")
