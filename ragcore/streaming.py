"""A lazy, replayable text stream: the one mechanism behind ``Response`` and ``ChatResponse``.

Nothing runs until the first read. Iterating yields chunks as the producer makes them; chunks are
kept, so a second iteration (or ``.text`` after a partial read) replays what came before and
then continues the producer where it stopped. ``on_complete`` runs once with the whole text when
the producer finishes; it never runs for a stream that failed or was abandoned.

A failure is raised again on every later read: an answer that broke off must never look
complete (the chunks that did arrive are still readable by iterating until the error).

An answer that comes back empty must not look like one either: every engine passes the model's
final reply through ``or_empty_notice`` (a stream) or ``reply_or_notice`` (a whole text), which
put ``EMPTY_REPLY`` in its place and say so in the trace notes. One rule, two shapes.
"""

from __future__ import annotations

import asyncio
import sys
from itertools import chain
from typing import Any, AsyncIterator, Callable, Iterable, Iterator, MutableMapping, Sequence

EMPTY_REPLY = "(the model returned an empty reply)"
_EMPTY_NOTE = "the model's reply was empty or only whitespace; the answer says so"


def or_empty_notice(chunks: Iterable[str], notes: MutableMapping[str, Any]) -> Iterator[str]:
    """The chunks as they come; if they hold no text at all, ``EMPTY_REPLY`` instead (noted in
    ``notes["empty_reply"]``). Leading whitespace is held back until text follows it."""
    held: list[str] | None = []
    for chunk in chunks:
        if held is not None:
            if not chunk.strip():
                held.append(chunk)
                continue
            yield from held
            held = None
        yield chunk
    if held is not None:
        notes["empty_reply"] = _EMPTY_NOTE
        yield EMPTY_REPLY


def begun_with(opening: str, chunks: Iterable[str]) -> Iterator[str]:
    """A reply begun for the model (``opening``, its prompt's final assistant message: "**"),
    put back in front, sent with the model's first chunk so the time to the first chunk stays
    the model's own; the chunks unchanged for an empty ``opening``. Closed early (Stop, a reply
    settled after its short answer), it closes ``chunks`` at once: the model stops there."""
    stream = iter(chunks)
    try:
        if opening:
            yield opening + next(stream, "")
        yield from stream
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()


def without_phrases(chunks: Iterable[str], phrases: Sequence[str]) -> Iterator[str]:
    """The chunks with every occurrence of ``phrases`` taken out (the longest one where several
    start at one place), also where one is split across chunks: only text that may still grow
    into one is held back. A phrase the text opens with takes the marks after it along
    ("**<support>**. The crawler ..." is "The crawler ...", not ". The crawler ...")."""
    pending, kept_any, cut_first = "", False, False
    for chunk in chain(chunks, (None,)):  # None: the end, where nothing more is held back
        text = pending + (chunk or "")
        kept, pending = _cut_phrases(text, phrases, final=chunk is None)
        if not kept_any:  # the reply's start: marks left by a phrase it opened with go too
            cut_first = cut_first or text.startswith(tuple(phrases))
            kept = kept.lstrip(" .,;:") if cut_first else kept
        if kept:
            kept_any = True
            yield kept


def _cut_phrases(text: str, phrases: Sequence[str], *, final: bool) -> tuple[str, str]:
    """``text`` without ``phrases``, and (unless ``final``) the tail from the first place a
    phrase may begin but ``text`` ends before it could be told. Only the places where a phrase's
    first character stands are looked at."""
    kept, i = [], 0
    firsts = "".join({p[0] for p in phrases})
    while i < len(text):
        found = (text.find(c, i) for c in firsts)
        at = min((k for k in found if k >= 0), default=len(text))
        kept.append(text[i:at])
        if at == len(text):
            break
        rest = text[at:at + max(map(len, phrases))]
        if not final and any(len(p) > len(text) - at and p.startswith(rest) for p in phrases):
            return "".join(kept), text[at:]
        whole = max((p for p in phrases if text.startswith(p, at)), key=len, default="")
        kept.append(text[at:at + 1] if not whole else "")
        i = at + max(len(whole), 1)
    return "".join(kept), ""


def reply_or_notice(text: str, notes: MutableMapping[str, Any]) -> str:
    """A whole reply, or ``EMPTY_REPLY`` when it is blank (the rule of ``or_empty_notice``)."""
    return "".join(or_empty_notice((text,), notes))


class TextStream:
    """Chunks from ``produce()``, pulled on demand and kept for replay; the base of both
    responses, which add their sources and trace."""

    __slots__ = (
        "_produce", "_on_complete", "_parts", "_stream", "_done", "_error"
    )

    def __init__(
        self,
        produce: Callable[[], Iterable[str]],
        *,
        on_complete: Callable[[str], None] | None = None,
    ) -> None:
        self._produce = produce
        self._on_complete = on_complete
        self._parts: list[str] = []
        self._stream: Iterator[str] | None = None
        self._done = False
        self._error: BaseException | None = None

    def __iter__(self) -> Iterator[str]:
        position = 0
        while True:
            if position < len(self._parts):
                yield self._parts[position]
                position += 1
            elif self._done:
                if self._error is not None:
                    raise self._error
                return
            else:
                self._pull()

    def _pull(self) -> None:
        if self._stream is None:
            self._stream = iter(self._produce())
        try:
            chunk = next(self._stream)
        except StopIteration:
            self._done = True
            if self._on_complete is not None:
                self._on_complete("".join(self._parts))
            return
        except BaseException as exc:
            self._done = True
            self._error = exc
            raise
        if chunk:
            self._parts.append(chunk)

    def close(self) -> None:
        """Stop reading: the producer is closed, so what it has not made yet (a summary's
        remaining model calls, the rest of a model's reply) is never made; the text so far
        stays, and the stream reads as finished."""
        close = getattr(self._stream, "close", None)
        if close is not None and not self._done:
            close()
        self._done = True

    @property
    def text(self) -> str:
        """The whole text (runs the rest of the producer if needed)."""
        return "".join(self)

    @property
    def done(self) -> bool:
        """Whether the producer has finished (or failed)."""
        return self._done

    def __str__(self) -> str:
        return self.text

    @property
    def started(self) -> bool:
        """Whether anything has been read yet."""
        return self._stream is not None

    @property
    def chars(self) -> int:
        """How many characters have arrived so far."""
        return sum(map(len, self._parts))

    # LlamaIndex's names for the same stream (views, not a second path).

    @property
    def response(self) -> str:
        """The whole text (LlamaIndex's ``response.response``): ``.text``."""
        return self.text

    @property
    def response_gen(self) -> Iterator[str]:
        """The chunks as they come (LlamaIndex's ``response.response_gen``): ``iter(self)``."""
        return iter(self)

    async def async_response_gen(self) -> AsyncIterator[str]:
        """The chunks for ``async for`` (LlamaIndex's name): the same stream, each chunk
        pulled in a worker thread so the event loop never waits on the model."""
        chunks = iter(self)
        while True:
            chunk = await asyncio.to_thread(next, chunks, None)
            if chunk is None:
                return
            yield chunk

    def print_response_stream(self, file: Any = None) -> None:
        """Write the chunks to ``file`` (stdout by default) as they arrive, as LlamaIndex does."""
        out = sys.stdout if file is None else file
        for chunk in self:
            out.write(chunk)
            out.flush()
