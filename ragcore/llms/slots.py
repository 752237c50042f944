"""Admission to a shared engine's slots: first come, first served, each waiter told its place.

llama.cpp decodes ``parallel`` replies at once and queues the rest inside itself, where nobody
can see how long they will wait. ``SlotQueue`` admits at most ``slots`` requests at a time and
keeps the others in arrival order, so a waiting request knows how many wait before it
(``Ticket.ahead``) and can say so while it waits.

A request ``enter``s the queue and gets a ``Ticket``; ``wait`` blocks until the ticket holds a
slot; closing the ticket (it is a context manager) gives the slot, or the place in line, back at
once, and the next waiter runs. While it waits, the ticket calls the reporter the caller set with
``waiting_reporter`` (a context variable, so the app can show the place without threading a
callback through the query engine): with the number waiting ahead whenever that changes and
about every ``REPORT_SECONDS``. An exception the reporter raises (Streamlit stops a script that
way when its user presses Stop or leaves) ends the wait, frees the ticket and propagates.

One question makes several calls (the not-found gate's pass, the answer, the claim judge's
check). Inside ``one_turn()`` they share one place: the first call waits for a slot and the
others use it without queueing again, so two people asking at once are answered one after the
other, not call by call in turns, and the slot is freed when the question's block ends. Calls a
thread pool makes inside the block share it too when the pool runs them in a copy of the
caller's context (``synthesis.steps`` does), so no slot is held while waiting for another.
Outside a turn each call takes its own ticket and gives it back when it ends. The queue times
each hold, so a waiter's place comes with an estimate (``expected_wait``, ``Turn.expected_wait``).

A slot given back is free for the next question at once; the work in it stops too. A call made
inside ``stopped_by(event)`` (``one_turn`` is one: its end is the event) asks ``stop_signal()``
for a check it can make from any thread, and the engine stops decoding, and reading the prompt,
once the check says so (``llms.local.engine``: at its next batch of prompt tokens or its next
token).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import deque
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator

from ..errors import ConfigError, LLMError

REPORT_SECONDS = 0.5  # how often a waiter's place is told again when it has not changed


@dataclass(slots=True, frozen=True)
class Reporter:
    """What a waiting request tells its caller: ``report(ahead)`` while it waits, then
    ``started()`` once it holds a slot (only if it had to wait); ``alive()`` every
    ``REPORT_SECONDS`` a call read in the caller's thread stays silent (the model reading its
    prompt): raising there ends the call and its work, as ``report`` raising ends a wait."""

    report: Callable[[int], object]
    started: Callable[[], object] | None = None
    alive: Callable[[], object] | None = None


_REPORTER: contextvars.ContextVar[Reporter | None] = contextvars.ContextVar(
    "ragcore_waiting_reporter", default=None)


@contextmanager
def waiting_reporter(report: Callable[[int], object], *,
                     started: Callable[[], object] | None = None,
                     alive: Callable[[], object] | None = None) -> Iterator[None]:
    """Within the block, a request of this thread that has to wait for a slot calls
    ``report(ahead)`` as it waits and ``started()`` when its turn comes; a silent call,
    ``alive()`` now and then (see ``Reporter``)."""
    token = _REPORTER.set(Reporter(report, started, alive))
    try:
        yield
    finally:
        _REPORTER.reset(token)


def current_reporter() -> Reporter | None:
    """The reporter set by ``waiting_reporter`` in this context (None: nobody listens)."""
    return _REPORTER.get()


class Turn:
    """One question's places: a ticket per queue, taken by its first call, freed at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[SlotQueue, Ticket] = {}
        self.ended = threading.Event()  # set by ``close``: its calls still running stop
        self.queue: SlotQueue | None = None  # the line it last entered (its wait's estimate)

    def expected_wait(self, ahead: int) -> float | None:
        """Seconds until this question's turn comes with ``ahead`` before it, by the measured
        time of the last questions (``SlotQueue.expected_wait``); None before any."""
        return None if self.queue is None else self.queue.expected_wait(ahead)

    def admitted(self, queue: SlotQueue) -> None:
        """Hold a slot of ``queue`` for this question (waiting for it the first time)."""
        with self._lock:  # a second thread of the question waits for the same slot here
            if queue in self._held:
                return
            self.queue = queue
            ticket = queue.enter()
            ticket.wait()  # closes the ticket if it raises
            self._held[queue] = ticket

    def close(self) -> None:
        self.ended.set()
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for ticket in held:
            ticket.close()


_TURN: contextvars.ContextVar[Turn | None] = contextvars.ContextVar("ragcore_turn", default=None)


@contextmanager
def one_turn() -> Iterator[Turn]:
    """Within the block, every call to an engine shares one place in its line (see the module's
    docstring); the slot is given back when the block ends, however it ends."""
    turn = Turn()
    token = _TURN.set(turn)
    try:
        with stopped_by(turn.ended):
            yield turn
    finally:
        _TURN.reset(token)
        turn.close()


_STOPS: contextvars.ContextVar[tuple[threading.Event, ...]] = contextvars.ContextVar(
    "ragcore_stops", default=())


@contextmanager
def stopped_by(event: threading.Event) -> Iterator[None]:
    """Within the block, a model call stops its work once ``event`` is set (and once any event
    of an enclosing block is)."""
    token = _STOPS.set((*_STOPS.get(), event))
    try:
        yield
    finally:
        _STOPS.reset(token)


def stop_signal() -> Callable[[], bool]:
    """Whether the work of this context was stopped: a check taken here and asked from any
    thread (llama.cpp's callback runs in the engine's own)."""
    events = _STOPS.get()
    return lambda: any(event.is_set() for event in events)


def current_turn() -> Turn | None:
    """The question's turn this call belongs to (None: outside ``one_turn``)."""
    return _TURN.get()


@dataclass(slots=True, frozen=True)
class QueueState:
    """A queue at one moment: requests holding a slot, requests waiting for one."""

    slots: int
    running: int
    waiting: int


class SlotQueue:
    """At most ``slots`` requests at once; the others wait in arrival order. How long each
    held its slot is kept (the last ``MEASURED``), so a waiter can be told an honest estimate."""

    MEASURED = 8

    def __init__(self, slots: int, *, clock: Callable[[], float] = time.monotonic) -> None:
        if slots < 1:
            raise ConfigError(f"slots ({slots}) must be at least 1: the engine's parallel slots")
        self.slots = slots
        self._changed = threading.Condition()
        self._waiting: deque[Ticket] = deque()
        self._running = 0
        self._clock = clock
        self._since: dict[Ticket, float] = {}  # running tickets: when each took its slot
        self._held: deque[float] = deque(maxlen=self.MEASURED)  # seconds the last ones held

    def expected_wait(self, ahead: int) -> float | None:
        """Seconds until a request with ``ahead`` waiting before it holds a slot: the soonest
        running one's time left, then ``ahead`` more, at the median of the measured holds
        spread over the slots; None until a hold was measured."""
        with self._changed:
            if not self._held:
                return None
            typical = sorted(self._held)[len(self._held) // 2]
            now = self._clock()
            left = min((max(typical - (now - t), 0.0) for t in self._since.values()),
                       default=0.0)
            return left + ahead * typical / self.slots

    def enter(self) -> Ticket:
        """A ticket in line (holding a slot at once if one is free and nobody waits)."""
        ticket = Ticket(self)
        with self._changed:
            self._waiting.append(ticket)
            self._admit()
        return ticket

    def state(self) -> QueueState:
        with self._changed:
            return QueueState(self.slots, self._running, len(self._waiting))

    def _admit(self) -> None:  # holding the lock
        while self._waiting and self._running < self.slots:
            ticket = self._waiting.popleft()
            ticket._running = True
            self._since[ticket] = self._clock()
            self._running += 1
        self._changed.notify_all()

    def _ahead(self, ticket: Ticket) -> int:  # holding the lock
        return self._waiting.index(ticket) if ticket._waits else 0

    def _release(self, ticket: Ticket) -> None:
        with self._changed:
            if ticket._closed:
                return
            ticket._closed = True
            if ticket._running:
                ticket._running = False
                self._running -= 1
                self._held.append(self._clock() - self._since.pop(ticket))
            else:
                self._waiting.remove(ticket)
            self._admit()


class Ticket:
    """One request's place in a ``SlotQueue``: ``wait`` for the slot, ``close`` when done."""

    def __init__(self, queue: SlotQueue) -> None:
        self._queue = queue
        self._running = False
        self._closed = False

    @property
    def _waits(self) -> bool:
        return not (self._running or self._closed)

    @property
    def ahead(self) -> int:
        """How many requests wait before this one (0 once it runs, or is next)."""
        with self._queue._changed:
            return self._queue._ahead(self)

    @property
    def running(self) -> bool:
        """Whether this ticket holds a slot."""
        with self._queue._changed:
            return self._running

    def wait(self, timeout: float | None = None) -> bool:
        """Block until this ticket holds a slot (True) or ``timeout`` seconds pass (False),
        telling the context's reporter the place meanwhile. Any exception, the reporter's
        included, closes the ticket and propagates."""
        reporter = _REPORTER.get()
        try:
            if self._wait(reporter, timeout):
                return True
        except BaseException:
            self.close()
            raise
        return False

    def _wait(self, reporter: Reporter | None, timeout: float | None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        told: int | None = None  # the place last reported (None: not yet)
        told_at = 0.0
        changed = self._queue._changed
        while True:
            with changed:
                if self._closed:
                    raise LLMError("this request was cancelled while it waited for the model: "
                                   "ask again")
                if self._running:
                    break
                ahead, now = self._queue._ahead(self), time.monotonic()
                if reporter is None or (ahead == told and now - told_at < REPORT_SECONDS):
                    if deadline is not None and now >= deadline:
                        return False
                    retell = told_at + REPORT_SECONDS if reporter is not None else None
                    wake = [t for t in (deadline, retell) if t is not None]
                    changed.wait(min(wake) - now if wake else None)
                    continue
            told, told_at = ahead, now
            reporter.report(ahead)  # outside the lock: it may be slow, or raise
        if told is not None and reporter is not None and reporter.started is not None:
            reporter.started()
        return True

    def close(self) -> None:
        """Give the slot, or the place in line, back; the next waiter runs. Idempotent."""
        self._queue._release(self)

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

