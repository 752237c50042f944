"""The answer to a query: one lazy object for streaming and whole text, with sources and trace.

Iterating a ``Response`` runs the synthesis and yields text chunks as the model produces them;
``.text`` (or ``str()``) drains the same generator. Chunks are kept, so a second iteration
replays them, and a consumer that reads part of the stream and then asks for ``.text`` gets the
whole answer. Nothing runs until the first read. The mechanism is the base class
``streaming.TextStream``, shared with the chat engines' ``ChatResponse``.

A response from an engine that checks its answers (``check``: ``present.markers.AnswerCheck``,
given by ``index.as_query_engine()``) also carries what a person is shown: ``checked`` is the
answer as its grounding verdict allows it (``.text`` with markers [n], ``.verdict``,
``.listing`` of the sources numbered to match), computed once, after the stream ends; ``shown``
and ``verdict`` read it. ``.text`` stays the model's own words. A factoid's reply ends right after
its short answer when the check vouches for that alone (``settling``): what is shown is the short
answer with the passage sentence stating it, so the model's sentence of support is not written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence

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


class AnswerCheck(Protocol):
    """Writes what a person is shown of an answer over its passages (``present.markers``)."""

    def __call__(self, answer: str, nodes: Sequence[ScoredNode], *, question: str,
                 trace: Trace | None = None, response_mode: str | None = None) -> Any: ...


# A reply's opening short answer, whole: "**60 Million barrels**." (the answer form's).
_SHORT_ANSWER = re.compile(r"\s*\*\*[^*\n]{1,200}\*\*\s*\.")
SETTLED_NOTE = "ended_after_short_answer"  # in a reply's trace notes


class CheckedReply:
    """What a person is shown of a reply from an engine that checks its answers: ``check``
    (``present.markers.AnswerCheck``) over its ``source_nodes`` against ``question``, computed
    once after the stream ends. A subclass says what is shown of a reply it did not check
    (``unchecked``) and which synthesis mode wrote it (``response_mode``)."""

    check: AnswerCheck | None
    question: str
    source_nodes: list[ScoredNode]
    trace: Trace
    text: str
    _checked: Any

    @property
    def response_mode(self) -> str | None:
        return None

    def unchecked(self) -> str:
        """What is shown of an answer the check did not read: the model's text."""
        return self.text

    @property
    def checked(self) -> Any:
        """The answer as a person is shown it (``CheckedAnswer``: text, verdict, listing),
        or None when it is not checked; reads the whole stream first."""
        if self.check is None or not self.question.strip():
            return None
        text = self.text  # to its end first: an agent's passages come in while it runs
        if not self.checkable():
            return None
        if self._checked is None:
            self._checked = self.check(text, self.source_nodes, question=self.question,
                                       trace=self.trace, response_mode=self.response_mode)
        return self._checked

    def checkable(self) -> bool:
        """Whether there is anything to check the answer against (a query's answer always)."""
        return True

    def settling(self, chunks: Iterable[str]) -> Iterator[str]:
        """``chunks`` as they come, ended (the model stopped) right after the reply's opening
        short answer when the check vouches for it alone (``AnswerCheck.settled``): it is
        shown with the passage sentence stating it, and the model's sentence of support would
        not be (a second or more of writing on a slow machine). Asked once, as the short
        answer closes; that check is then the reply's (``checked``)."""
        stream = iter(chunks)
        opening: str | None = ""  # the reply so far, None once its opening is decided
        try:
            for chunk in stream:
                yield chunk
                if opening is None:
                    continue
                opening += chunk
                lead, begun = _SHORT_ANSWER.match(opening), opening.lstrip()
                if lead is None:
                    if len(opening) > 240 or not (begun.startswith("**")
                                                  or "**".startswith(begun)):
                        opening = None  # no short answer opens this reply
                    continue
                opening = None
                settled = self._settled(lead.group(0))
                if settled is not None:
                    self._checked = settled
                    self.trace.notes[SETTLED_NOTE] = (
                        "the check vouched for the short answer on its own: the model was "
                        "stopped after it")
                    return
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()  # stops the model at its next token

    def _settled(self, lead: str) -> Any:
        settle = getattr(self.check, "settled", None)
        if settle is None or not self.question.strip() or not self.source_nodes:
            return None
        with self.trace.stage("check: the short answer alone"):
            return settle(lead, self.source_nodes, question=self.question, trace=self.trace,
                          response_mode=self.response_mode)

    @property
    def shown(self) -> str:
        """What a person is shown: the checked answer, else ``unchecked``."""
        checked = self.checked
        return self.unchecked() if checked is None else checked.text

    @property
    def verdict(self) -> Any:
        """The answer's grounding verdict (``ragcore.grounding.Verdict``), or None unchecked."""
        checked = self.checked
        return None if checked is None else checked.verdict


@dataclass(eq=False)
class Response(CheckedReply, TextStream):
    """An answer: iterate for streamed chunks, or read ``.text``; plus sources and trace."""

    produce: Callable[[], Iterable[str]]
    source_nodes: list[ScoredNode] = field(default_factory=list)
    trace: Trace = field(default_factory=Trace)
    mode: ResponseMode = ResponseMode.COMPACT
    metadata: dict[str, Any] = field(default_factory=dict)
    check: AnswerCheck | None = None
    question: str = ""

    def __post_init__(self) -> None:
        # A failed synthesis raises on every read, after the chunks that arrived (see TextStream).
        TextStream.__init__(self, lambda: self.settling(self.produce()))
        self._checked: Any = None

    @property
    def response_mode(self) -> str | None:
        return self.mode.value

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
