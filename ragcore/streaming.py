"""A lazy, replayable text stream: the one mechanism behind ``Response`` and ``ChatResponse``.

Nothing runs until the first read. Iterating yields chunks as the producer makes them; chunks are
kept, so a second iteration (or ``.text`` after a partial read) replays what came before and
then continues the producer where it stopped. ``on_complete`` runs once with the whole text when
the producer finishes; it never runs for a stream that failed or was abandoned.

A failure is raised again on every later read: an answer that broke off must never look
complete (the chunks that did arrive are still readable by iterating until the error).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator


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
