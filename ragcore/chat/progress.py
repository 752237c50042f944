"""What a person is told while a chat turn's answer is made: reading, draft, checking, checked.

The packaged model reads the whole prompt before it writes a word (tens of seconds on a busy
machine), then streams a reply that ragcore's grounding verdict may replace by a refusal once it
is checked. Shown as it comes, that reply reads as the answer and is then taken back. So a turn
is shown in four states, in this order (``turn_states``):

- ``Reading``: the model has the passages and has not written yet; how far it has read them is
  an estimate from their words and the model's measured reading rate (``reading_rate``), when
  its backend measures one, else the seconds it has spent; past that estimate, that it takes
  longer than estimated, with the seconds it has spent (never that the answer is about to begin);
- ``Draft``: the text streamed so far, to be shown as a draft, never as the answer;
- ``Checking``: the whole draft, while it is checked against the passages;
- ``Checked``: the check's result: the one text shown as the answer.

The app draws each state in place (``webapp.chat.turn_view``), the CLI writes a progress line on
stderr. To tell the reading while the model is silent, the stream is read in a worker thread
(``pulled``) and the caller gets a ``Reading`` every ``tick`` seconds in its own thread. A wait
for the model's slot (``llms.slots``) happens in that worker; it is relayed to the caller's
reporter in the caller's thread, so a page shows the place in line and its Stop still ends the
wait: the worker's next report then raises, which frees the place.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Generic, Iterable, Iterator, Sequence, TypeVar

from ..errors import LLMError
from ..llms.slots import current_reporter, stopped_by, waiting_reporter

T = TypeVar("T")
TICK_SECONDS = 0.25  # how often the reading is told again while the model is silent
WORDS_PER_TOKEN = 0.75  # English prose: the model's reading rate is in tokens, people count words
DRAFT_LABEL = "Draft, being checked against the passages"
CHECKING_LABEL = "Checking the answer against the passages…"
SEARCHING_LABEL = "Looking for passages in the documents…"
FOLLOW_UP_LABEL = ("Looking for passages in the documents: the model first rewrites your "
                   "follow-up to stand on its own…")


@dataclass(frozen=True, slots=True)
class Reading:
    """The model reads ``words`` words of passages; ``read`` of them, by the measured rate
    (None: no rate measured); ``seconds`` since it began; ``waiting``: still in line;
    ``estimate``: the seconds the measured rate gives the whole reading (None: no rate)."""

    passages: int
    words: int
    read: int | None
    seconds: float
    waiting: bool = False
    estimate: float | None = None

    def line(self) -> str:
        """What a person reads, in passages and seconds whether a rate is measured or not:
        "Reading the passages: 1 of 4 read, 6 s so far." (without one: "4 to read"); past the
        estimate, that it takes longer, the seconds still counting (the model reads more than
        the passages, and may be slower than measured: the first word's time is not known)."""
        if self.waiting:
            return (f"Waiting in line, {self.seconds:.0f} s so far: the model reads the "
                    f"{self._count()} when your turn comes.")
        if self.read is not None and self.read >= self.words and self.seconds > 0:
            estimated = ("" if self.estimate is None
                         else f", about {max(1, round(self.estimate))} s estimated")
            return (f"Reading the passages: taking longer than estimated: {self.seconds:.0f} s "
                    f"so far{estimated}.")
        if self.read is None:
            done = f"{self.passages} to read"
        else:  # the passages wholly read, as far as their words tell
            done = f"{self.passages * self.read // max(self.words, 1)} of {self.passages} read"
        return f"Reading the passages: {done}, {self.seconds:.0f} s so far."

    def _count(self) -> str:
        return "passage" if self.passages == 1 else f"{self.passages} passages"


@dataclass(frozen=True, slots=True)
class Draft:
    """The reply streamed so far: not yet checked."""

    text: str


@dataclass(frozen=True, slots=True)
class Checking:
    """The whole draft, while it is checked against the passages."""

    text: str


@dataclass(frozen=True, slots=True)
class Checked(Generic[T]):
    """What the check made of the draft (the app: the marked text and its sources)."""

    text: str
    result: T


def passage_words(sources: Sequence[Any]) -> int:
    """The words of the passages the model reads (``ScoredNode``s, or anything with ``.node``)."""
    return sum(len(getattr(s, "node", s).text.split()) for s in sources)


def reading_rate(llm: Any) -> float | None:
    """Words a second the model reads prompts at now, by its backend's measure (None: its
    backend measures none, or nothing was measured yet)."""
    measured = getattr(llm, "reading_rate", None)
    tokens = measured() if callable(measured) else None
    return None if not tokens else tokens * WORDS_PER_TOKEN


def turn_states(chunks: Iterable[str], check: Callable[[str], T], *,
                sources: Sequence[Any] = (), rate: Callable[[], float | None] = lambda: None,
                tick: float | None = TICK_SECONDS,
                clock: Callable[[], float] = time.monotonic) -> Iterator[Any]:
    """``Reading`` (every ``tick`` seconds until the first text), ``Draft`` (on each chunk),
    ``Checking`` (when the reply is whole and has ``sources`` to be checked against), and last
    ``Checked`` with ``check(text)``. With ``tick`` None the chunks are read in this thread
    and no ``Reading`` is told (an agent's steps are shown as they are taken instead)."""
    text = ""
    puller = _Puller(chunks, every=tick) if tick is not None else None
    began = clock()
    for chunk in puller if puller is not None else chunks:
        if chunk is not None:
            text += chunk
            yield Draft(text)
        elif not text and sources:
            if puller.started_at is not None:
                began, puller.started_at = clock(), None  # its turn came: the reading begins
            yield _reading(sources, rate, clock() - began, waiting=puller.waiting)
    if sources:
        yield Checking(text)
    yield Checked(text, check(text))


def pulled(chunks: Iterable[str], *, every: float = TICK_SECONDS) -> Iterator[str | None]:
    """``chunks`` read in a worker thread: each chunk, or None every ``every`` seconds none
    came (so a page can redraw, and its Stop act, while the model is silent); stopping the
    iteration stops the model's work at once (``slots.stopped_by``) and closes ``chunks``."""
    return iter(_Puller(chunks, every=every))


def _reading(sources: Sequence[Any], rate: Callable[[], float | None], seconds: float, *,
             waiting: bool) -> Reading:
    words, speed = passage_words(sources), rate()
    read = None if speed is None else min(words, int(seconds * speed))
    estimate = None if speed is None else words / speed
    return Reading(len(sources), words, read, seconds, waiting, estimate)


class _Puller:
    """``chunks`` read in a worker thread (a copy of the caller's context, so a question's one
    slot is shared); iterating yields each chunk, or None every ``every`` seconds none came. The
    worker's wait for a slot is told to the caller's reporter from the iterating thread."""

    def __init__(self, chunks: Iterable[str], *, every: float) -> None:
        self._chunks, self._every = chunks, every
        self._box: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._places: queue.Queue[int | None] = queue.Queue()  # None: its turn came
        self._cancelled = threading.Event()
        self.waiting = False  # in line for the model's slot
        self.started_at: float | None = None  # set when a wait in line ended

    def __iter__(self) -> Iterator[str | None]:
        outer = current_reporter()
        context = contextvars.copy_context()
        threading.Thread(target=context.run, args=(self._work,), name="ragcore-turn-reader",
                         daemon=True).start()
        try:
            while True:
                try:
                    kind, value = self._box.get(timeout=self._every)
                except queue.Empty:
                    self._relay(outer)
                    yield None
                    continue
                self._relay(outer)
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                yield value
        finally:  # the caller stopped reading (Stop, an error): the worker stops too
            self._cancelled.set()

    def _relay(self, outer: Any) -> None:
        """Tell the caller's reporter, in this thread, what the worker's wait reported."""
        while not self._places.empty():
            ahead = self._places.get()
            self.waiting = ahead is not None
            if ahead is None:
                self.started_at = time.monotonic()
            if outer is not None and ahead is not None:
                outer.report(ahead)
            elif outer is not None and outer.started is not None:
                outer.started()

    def _report(self, ahead: int) -> None:  # in the worker, while it waits in line
        if self._cancelled.is_set():
            raise LLMError("the question was withdrawn while it waited for the model")
        self._places.put(ahead)

    def _work(self) -> None:
        chunks = iter(self._chunks)
        try:
            # A caller that stops reading stops the model too, even while it reads the prompt.
            with waiting_reporter(self._report, started=lambda: self._places.put(None)), \
                    stopped_by(self._cancelled):
                for chunk in chunks:
                    self._box.put(("chunk", chunk))
                    if self._cancelled.is_set():
                        break
            self._box.put(("end", None))
        except BaseException as exc:  # noqa: BLE001 - handed to the reader, who raises it
            self._box.put(("error", exc))
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()
