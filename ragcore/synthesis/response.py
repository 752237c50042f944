"""The answer to a query: one lazy object for streaming and whole text, with sources and trace.

Iterating a ``Response`` runs the synthesis and yields text chunks as the model produces them;
``.text`` (or ``str()``) drains the same generator. Chunks are kept, so a second iteration
replays them, and a consumer that reads part of the stream and then asks for ``.text`` gets the
whole answer. Nothing runs until the first read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

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
class Response:
    """An answer: iterate for streamed chunks, or read ``.text``; plus sources and trace."""

    produce: Callable[[], Iterable[str]]
    source_nodes: list[ScoredNode] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    mode: ResponseMode = ResponseMode.COMPACT
    metadata: dict[str, Any] = field(default_factory=dict)
    _parts: list[str] = field(default_factory=list, init=False, repr=False)
    _stream: Iterator[str] | None = field(default=None, init=False, repr=False)
    _done: bool = field(default=False, init=False, repr=False)

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> Response:
        """A response whose text is already known (no model call)."""
        return cls(lambda: (text,) if text else (), **kwargs)

    def __iter__(self) -> Iterator[str]:
        position = 0
        while True:
            if position < len(self._parts):
                yield self._parts[position]
                position += 1
            elif self._done:
                return
            else:
                self._pull()

    def _pull(self) -> None:
        if self._stream is None:
            self._stream = iter(self.produce())
        try:
            chunk = next(self._stream)
        except StopIteration:
            self._done = True
            return
        except BaseException:
            self._done = True
            raise
        if chunk:
            self._parts.append(chunk)

    @property
    def text(self) -> str:
        """The whole answer (runs the synthesis to the end if it has not run yet)."""
        while not self._done:
            self._pull()
        return "".join(self._parts)

    @property
    def done(self) -> bool:
        """Whether the answer has been produced completely."""
        return self._done

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        state = "done" if self._done else ("streaming" if self._stream is not None else "not run")
        return (
            f"Response(mode={self.mode.value!r}, {state}, chars={sum(map(len, self._parts))}, "
            f"sources={len(self.source_nodes)})"
        )

    def sources(self) -> list[Source]:
        """The source nodes as file, page, score, offsets and passage, best first."""
        return [source_of(s) for s in self.source_nodes]
