"""The reply to one chat turn: one lazy object for streaming and whole text, like ``Response``.

Iterating a ``ChatResponse`` yields the answer's text chunks as the model produces them (only the
answer: an agent's Thought/Action lines never appear); ``.text`` drains the same stream. Chunks
are kept, so iterating again replays them. When the stream completes, ``on_complete`` runs once
with the whole text (engines use it to put the assistant's reply into the memory); if the stream
fails, the error is raised to the reader, again on every later read, and nothing is saved. The
mechanism is the base class ``streaming.TextStream``, shared with the query ``Response``.

Engines do their preparation (condensing, retrieval) before returning, so ``source_nodes`` is
ready at once; agents run their whole loop while the stream is read, so their ``source_nodes``
and ``tool_outputs`` fill in as tools are called and are complete when the stream is.
"""

from __future__ import annotations

from typing import Callable, Iterable, Protocol, runtime_checkable

from ..memory import ChatMemory
from .sourceless import sourceless_reply
from ..streaming import TextStream
from ..synthesis.response import AnswerCheck, CheckedReply, source_of
from ..trace import Trace
from ..types import Message, ScoredNode


@runtime_checkable
class ChatEngine(Protocol):
    """What every chat engine and agent is: one stateless ``chat`` per turn."""

    def chat(
        self, message: str, memory: ChatMemory, *, trace: Trace | None = None
    ) -> ChatResponse:
        """Answer ``message`` given the conversation in ``memory`` (which it updates)."""
        ...


class ChatResponse(CheckedReply, TextStream):
    """An assistant reply: iterate for streamed chunks, or read ``.text``; sources and trace.

    From an engine that checks its answers (``check``, given by ``index.as_chat_engine()``),
    ``shown`` and ``verdict`` are what a person is shown, as for a query's ``Response``: the
    reply checked against its passages and ``question`` (the standalone question a follow-up
    was rewritten to); a reply that read no passage says so first ("From our conversation, not
    checked against your documents"), an agent's that no tool showed anything, likewise."""

    def __init__(
        self,
        produce: Callable[[], Iterable[str]],
        *,
        trace: Trace,
        source_nodes: list[ScoredNode] | None = None,
        tool_outputs: list | None = None,
        on_complete: Callable[[str], None] | None = None,
        mode: str = "",
        check: AnswerCheck | None = None,
        question: str = "",
    ) -> None:
        self.trace = trace
        self.check = check
        self.question = question
        self._checked = None
        self.source_nodes: list[ScoredNode] = source_nodes if source_nodes is not None else []
        self.tool_outputs: list = tool_outputs if tool_outputs is not None else []
        self.mode = mode  # the chat mode (or agent) that made this reply
        if mode:
            trace.notes.setdefault("chat_mode", mode)  # shows what "best" resolved to
        super().__init__(produce, on_complete=on_complete)

    def checkable(self) -> bool:
        return bool(self.source_nodes)

    def unchecked(self) -> str:
        text = self.text  # drained first: an agent judges its answer when the stream ends
        if self.check is None:
            return text  # an engine that does not check: the model's words
        return sourceless_reply(text, self.trace.notes, self.mode)

    @classmethod
    def from_text(cls, text: str, *, trace: Trace, **kwargs) -> ChatResponse:
        """A reply whose text is already known."""
        return cls(lambda: (text,) if text else (), trace=trace, **kwargs)

    def sources(self) -> list:
        """The source nodes as file, page, score, offsets and passage (``Source``), best first."""
        return [source_of(s) for s in self.source_nodes]

    def __repr__(self) -> str:
        state = "done" if self.done else "streaming"
        return f"ChatResponse(mode={self.mode!r}, {state}, sources={len(self.source_nodes)})"


def remember_reply(memory: ChatMemory) -> Callable[[str], None]:
    """The ``on_complete`` of a plain reply: the whole text becomes the assistant's message."""

    def put(text: str) -> None:
        memory.put(Message("assistant", text))

    return put
