"""The answer to a query: one lazy object for streaming and whole text, with sources and trace.

Iterating a ``Response`` runs the synthesis and yields text chunks as the model produces them;
``.text`` (or ``str()``) drains the same generator. Chunks are kept, so a second iteration
replays them, and a consumer that reads part of the stream and then asks for ``.text`` gets the
whole answer. Nothing runs until the first read. The mechanism is the base class
``streaming.TextStream``, shared with the chat engines' ``ChatResponse``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from ..streaming import TextStream
from ..trace import Trace
from ..types import ScoredNode
from .modes import ResponseMode


@dataclass(frozen=True, slots=True)
class Source:
    """Where a piece of an answer's context came from, ready to show to a user."""

    file: str | None
    page: str | None
    score: float | None
    start_char: int | None
    end_char: int | None
    text: str
    node_id: str
    doc_id: str | None


def source_of(scored: ScoredNode) -> Source:
    node = scored.node
    return Source(
        file=scored.file_name,
        page=scored.page,
        score=scored.score,
        start_char=node.start_char,
        end_char=node.end_char,
        text=node.text,
        node_id=node.node_id,
        doc_id=node.ref_doc_id,
    )


@dataclass(eq=False)
class Response(TextStream):
    """An answer: iterate for streamed chunks, or read ``.text``; plus sources and trace."""

    produce: Callable[[], Iterable[str]]
    source_nodes: list[ScoredNode] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    mode: ResponseMode = ResponseMode.COMPACT
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # A failed synthesis raises on every read, after the chunks that arrived (see TextStream).
        TextStream.__init__(self, self.produce)

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> Response:
        """A response whose text is already known (no model call)."""
        return cls(lambda: (text,) if text else (), **kwargs)

    def __repr__(self) -> str:
        state = "done" if self.done else ("streaming" if self.started else "not run")
        return (
            f"Response(mode={self.mode.value!r}, {state}, chars={self.chars}, "
            f"sources={len(self.source_nodes)})"
        )

    def sources(self) -> list[Source]:
        """The source nodes as file, page, score, offsets and passage, best first."""
        return [source_of(s) for s in self.source_nodes]
