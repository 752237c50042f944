"""Simple chat: the model and the conversation, no retrieval (LlamaIndex's SimpleChatEngine)."""

from __future__ import annotations

from ..errors import ConfigError
from ..llms.base import LLM, answering, stream_traced
from ..memory import ChatMemory
from ..prompt_budget import PromptBudget, tokens_of
from ..streaming import or_empty_notice
from ..trace import Trace
from ..types import AnswerRequest, Message
from .response import ChatResponse, remember_reply
from .turn import close_prompt, fixed_parts, start_turn


class SimpleChatEngine:
    """Chat with the LLM alone: an optional system prompt, then the history that fits."""

    mode = "simple"

    def __init__(self, llm: LLM, *, system_prompt: str | None = None) -> None:
        if not isinstance(llm, LLM):
            raise ConfigError(f"llm must implement the LLM protocol, got {type(llm).__name__}")
        self.llm = llm
        self.system_prompt = system_prompt

    def chat(self, message: str, memory: ChatMemory, *, trace: Trace | None = None) -> ChatResponse:
        trace = Trace() if trace is None else trace
        start_turn(memory, message)
        prefix = [Message("system", self.system_prompt)] if self.system_prompt else []
        fixed = fixed_parts(tokens_of(prefix), message)
        room = PromptBudget.of(self.llm).room(fixed, prompt="the chat prompt")
        conversation = close_prompt(memory, message, room)
        messages = prefix + conversation
        room.record(trace, "chat")
        llm = answering(self.llm, AnswerRequest("chat", message, conversation=conversation[:-1]))
        return ChatResponse(
            lambda: or_empty_notice(stream_traced(llm, messages, trace, "chat"), trace.notes),
            trace=trace,
            on_complete=remember_reply(memory),
            mode=self.mode,
        )
