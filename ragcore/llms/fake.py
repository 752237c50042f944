"""A scripted LLM for tests: returns queued replies (or a default) and records every prompt."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable, Iterable, Iterator, Sequence

from ..types import Message


class FakeLLM:
    """Replies from a script; ``calls`` holds the messages of every call, in order.

    ``replies`` may hold strings or callables taking the messages and returning a string.
    When the script runs out, ``default`` answers (itself a string or callable).
    Replies are streamed in chunks of ``chunk_size`` characters so stream-joining is tested.
    A last message from the assistant is continued, as the packaged model does: a scripted
    reply that starts with it streams only the rest.
    """

    def __init__(
        self,
        replies: Iterable[str | Callable[[list[Message]], str]] = (),
        *,
        default: str | Callable[[list[Message]], str] = "fake answer",
        context_window: int = 4096,
        num_output: int = 256,
        chunk_size: int = 7,
        model: str = "fake",
        tool_replies: Iterable[Message] = (),
    ) -> None:
        self._replies = deque(replies)
        self._tool_replies = deque(tool_replies)
        self.default = default
        self.context_window = context_window
        self.num_output = num_output
        self.chunk_size = chunk_size
        self.model = model
        self.calls: list[list[Message]] = []
        self.tool_calls: list[tuple[list[Message], list[dict[str, Any]]]] = []

    def stream(self, messages: Sequence[Message]) -> Iterator[str]:
        messages = list(messages)
        self.calls.append(messages)
        reply = self._replies.popleft() if self._replies else self.default
        text = reply(messages) if callable(reply) else reply
        begun = messages[-1].content if messages and messages[-1].role == "assistant" else ""
        if begun and text.startswith(begun):
            text = text[len(begun):]
        for i in range(0, len(text), self.chunk_size):
            yield text[i : i + self.chunk_size]

    def chat_with_tools(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> Message:
        self.tool_calls.append((list(messages), list(tools)))
        if self._tool_replies:
            return self._tool_replies.popleft()
        return Message("assistant", "".join(self.stream(messages)))
