"""The loaded model: llama.cpp's server engine, shared by every ``LocalLLM`` of a process.

The engine (weights, KV cache, threads) is heavy, so it loads once per process and is shared: every
``LocalLLM`` with the same file, window, thread setting and slots uses one ``LocalEngine`` from
``shared_engine``, whichever browser session built it. The engine has ``parallel`` slots (two by
default), but admits one question at a time (``QUESTIONS_AT_ONCE``: measured faster for both of two
people on two cores); the others wait in line, told their place. A slot keeps the prompt it last
read, so a prompt that starts like the previous one (the same system prompt) only reads what is
new. Stopping a reply (closing its stream, or ending its turn: ``slots.stopped_by``) ends its work
at the next token, or at the next batch of prompt tokens while it still reads. Its threads follow
the machine unless set (``machine``), and every reply's speed is kept (``pace``). Whenever the
weights load, the engine reads its primers (``EngineConfig.primers``: the instructions a query's
answer opens with, then a chat's) each into a slot of its own and times the first, so the first
answer's reading budget follows this machine's measured speed at these threads and its
instructions are not read again. Each request is pinned to the slot whose cached prompt it
continues (``slot_choice``), so a chat's rewrite or title does not take the answer's slot.
"""

from __future__ import annotations

import atexit
import logging
import queue
import secrets
import threading
import time
import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ...errors import LLMError
from .chunks import chunk_text, finish_reason, is_last, raise_error, whole_reply
from .exchanges import Exchanges
from .machine import MachineLoad, ThreadChoice, allowed_cores, choose_threads, machine_now
from .pace import Pace
from .slot_choice import SlotChoice, prompt_text
from ..slots import REPORT_SECONDS, QueueState, SlotQueue, Turn, current_reporter, \
    current_turn, stop_signal

logger = logging.getLogger(__name__)


def default_threads() -> int:
    """The cores this process may use (the most threads the model is given)."""
    return allowed_cores()


@dataclass(slots=True, frozen=True)
class EngineConfig:
    """What decides whether two LocalLLMs can share one loaded engine."""

    path: Path
    window: int  # tokens per slot
    threads: int  # 0: fitted to the machine as it is (``machine.choose_threads``)
    parallel: int
    # Instructions read whenever the weights load (``_primed``), the first into slot 0 and
    # timed, the next into slot 1, ...: a query's answer's, then a chat answer's.
    primers: tuple[str, ...] = ()


# Prompt tokens read per batch: a Stop takes effect after the batch being read. Measured on
# these 2 cores (1 thread, 613-token prompt, load 4-8, CPU seconds): 16 tokens 16.0-16.3, 32:
# 15.0-15.8, 64: 13.7-13.8, 512: 13.5-13.6. 64 costs ~1 % and stops within 64 tokens' time
# (about 1 s idle, 4 s on one busy core).
READ_BATCH = 64

# The least share of a prompt an idle slot must already hold for llama.cpp to choose it (see
# ``_load_server``): only for a request not pinned to a slot (``slot_choice``: every one busy).
SLOT_SIMILARITY = 0.02

# How long closing a reply waits for llama.cpp to let its slot go (``LocalEngine._chunks``).
STOP_WAIT_SECONDS = 1.0

# Questions the engine answers at once, whatever its slots: one. Two at once on 2 busy cores
# (benchmarks/llm/bench_two_at_once, 2026-11-28) wrote each answer at 0.5-1 word/s and gave
# 71 s and 72 s for two people's whole answers (143 s together); one after the other gave 31 s
# and 60 s (90 s). The slots stay: a question's own calls (its rewrite, its answer) keep their
# prompts' openings in the slots' caches.
QUESTIONS_AT_ONCE = 1

# Tokens the primer's reply may write: enough to time the writing (``pace`` times two or
# more), few enough to cost well under a second on one busy thread (5-6 tokens a second).
PRIMER_REPLY = 4

# A fitted engine reloads with other threads only while no reply runs, and at most this often:
# loading takes a few seconds (4-6 s on 2 busy cores), a load that changes for a moment should
# not cost them. Nor within a question (``slots.one_turn``): only before its first call, since
# a reload empties the slots' caches, and the check asked in its answer's prompt would read the
# whole prompt again (issue 65: 967 tokens for a 462-token answer, 1,382 for a "Why?").
REFIT_SECONDS = 30.0


class LocalEngine:
    """One loaded model: llama.cpp's server engine, thread-safe, ``parallel`` slots.

    With ``config.threads`` 0 its threads follow the machine: chosen at load from how busy other
    programs keep the cores (``machine.choose_threads``), and chosen again before a request when
    no reply runs; a different choice reloads the weights with it (llama.cpp fixes a context's
    threads when it is made); within a question (``slots.one_turn``) only before its first
    call. Every finished reply's speed goes to ``pace``."""

    def __init__(self, config: EngineConfig, *, watch: Callable[[], MachineLoad] = machine_now
                 ) -> None:
        self.config = config
        self.pace = Pace()
        self.exchanges = Exchanges()  # its last replies' prompts: a judge asks in them
        self._watch = watch
        self._lock = threading.Lock()
        self._calls = 0  # requests running now (a reload waits for none)
        # Admission in arrival order, one question at a time (``QUESTIONS_AT_ONCE``).
        self.slots = SlotQueue(min(config.parallel, QUESTIONS_AT_ONCE))
        self.slot_choice = SlotChoice(config.parallel)  # the slot each request is pinned to
        self.choice = choose_threads(watch(), config.threads or None)
        self._server = self._load(self.choice.threads)
        self._loaded_at = time.monotonic()
        self._fitted_turn: weakref.ref[Turn] | None = None  # the question last fitted for

    @property
    def threads(self) -> int:
        return self.choice.threads

    def fit(self) -> ThreadChoice:
        """The threads for the machine as it is now; reloads with them when they differ from the
        loaded ones, no reply runs and the last load is ``REFIT_SECONDS`` old."""
        with self._lock:
            self._refit()
            return self.choice

    def _refit(self) -> None:
        if self._continues_turn() or self.config.threads or self._calls:
            return
        if time.monotonic() - self._loaded_at < REFIT_SECONDS:
            return
        choice = choose_threads(self._watch())
        if choice.threads != self.choice.threads:
            logger.info("reloading %s with %d threads: %s", self.config.path.name,
                        choice.threads, choice.reason)
            self._server = None  # the old weights go before the new ones come
            self._server = self._load(choice.threads)
            self._loaded_at = time.monotonic()
        self.choice = choice

    def _continues_turn(self) -> bool:
        """Whether this call belongs to the question the engine last fitted for (a later call
        of it: its answer after its rewrite, its check after its answer); marks it fitted."""
        turn = current_turn()
        if turn is None:
            return False
        continues = self._fitted_turn is not None and self._fitted_turn() is turn
        self._fitted_turn = weakref.ref(turn)
        return continues

    def _load(self, threads: int) -> Any:
        """The weights loaded with ``threads``, and the primers read, each into its slot, the
        first timed: the first answer's reading budget is this speed's (``pace``), not a
        default, and its instructions (a query's or a chat's) are already in a slot."""
        server = _load_server(self.config, threads)
        self.slot_choice.emptied()
        for slot, primer in enumerate(self.config.primers[:self.config.parallel]):
            # only the first is timed (writing ``PRIMER_REPLY`` tokens); the others write one,
            # so that they add no more to the load than reading their instructions
            body = _primer_body(primer, slot, PRIMER_REPLY if slot == 0 else 1)
            timings = _primed(server, body)
            self.slot_choice.holds(slot, prompt_text(body))
            if slot == 0:
                self.pace.record(timings, threads)
        return server

    def _begin(self, body: dict[str, Any]) -> tuple[Any, int, int | None]:
        """The server for one request (fitted first), its threads and the slot it is pinned to
        (``slot_choice``; None: every slot busy); running until ``_end``."""
        with self._lock:
            self._refit()
            self._calls += 1
            return self._server, self.choice.threads, self.slot_choice.take(prompt_text(body))

    def _end(self, slot: int | None) -> None:
        self.slot_choice.give_back(slot)
        with self._lock:
            self._calls -= 1

    def queue_state(self) -> QueueState:
        """Requests decoding now and requests waiting for a slot (Settings, benchmarks)."""
        return self.slots.state()

    @contextmanager
    def _admitted(self) -> Iterator[None]:
        """One slot held for one request, waited for in the caller's thread: the wait tells
        ``slots.waiting_reporter``'s reporter its place; an exception frees the place. Inside
        ``slots.one_turn`` the question's slot is held from its first call to its end."""
        turn = current_turn()
        if turn is not None:
            turn.admitted(self.slots)
            yield
            return
        with self.slots.enter() as ticket:
            ticket.wait()
            yield

    def stream(self, body: dict[str, Any], *,
               finished: Callable[[str], object] | None = None) -> Iterator[str]:
        """The reply to an OpenAI chat ``body``, as text chunks, once a slot is free; closing
        the iterator stops it and frees the slot for the next request in line. ``finished``
        hears why a reply written to its end ended ("stop", "length")."""
        with self._admitted():  # on the first next(), before any decoding starts
            for chunk in self._chunks(body):
                if text := chunk_text(chunk):
                    yield text
                if finished is not None and (reason := finish_reason(chunk)):
                    finished(reason)

    def complete(self, body: dict[str, Any]) -> dict[str, Any]:
        """The whole (non-streamed) reply object, e.g. with ``logprobs`` asked for, once a slot
        is free (the not-found gate's and the claim judge's short calls wait their turn too).
        It is streamed underneath, so that a stopped turn stops it too (``chunks``)."""
        with self._admitted():
            return whole_reply(self._chunks(body))

    def _chunks(self, body: dict[str, Any]) -> Iterator[Any]:
        """llama.cpp's chunks of the reply as it reads and decodes in a worker thread: one per
        batch of prompt tokens read (``prompt_progress``), then one per token. After each, the
        work goes on only while the reader reads on and the caller's turn has not been stopped
        (``slots.stop_signal``); a reply stopped that way raises instead of ending short."""
        chunks: queue.Queue[Any] = queue.Queue()
        stop, stopped = threading.Event(), stop_signal()
        done = object()

        def take(chunk: Any) -> bool:
            chunks.put(chunk)
            return stop.is_set() or stopped()  # True tells llama.cpp to stop this reply

        def run(server: Any, slot: int | None) -> None:
            pinned = {} if slot is None else {"id_slot": slot}
            try:  # every chunk says how far the reply has read and written (``timings``)
                server.handle_chat_completions(
                    {**body, **pinned, "stream": True, "return_progress": True,
                     "timings_per_token": True}, take)
            except BaseException as exc:  # handed to the reader, who raises it
                chunks.put(exc)
            finally:
                # when decoding ends, not when the reader stops: a reload waits, and the slot
                # is not chosen for another request while this one still runs in it
                self._end(slot)
                chunks.put(done)

        reporter = current_reporter()
        alive = reporter.alive if reporter is not None else None
        server, threads, slot = self._begin(body)
        worker = threading.Thread(target=run, args=(server, slot), name="ragcore-local-llm",
                                  daemon=True)
        running = (stop, worker)
        with _RUNNING_LOCK:
            _RUNNING.add(running)
        worker.start()
        whole, timings = False, None
        try:
            for chunk in _arrivals(chunks, done, alive):
                if isinstance(chunk, BaseException):
                    raise LLMError(f"the local model failed: {chunk}") from chunk
                raise_error(chunk)
                timings = _timings(chunk) or timings
                whole = whole or is_last(chunk)
                yield chunk
            if not whole and stopped():
                raise LLMError("the local model was stopped before its reply was whole: its "
                               "question was stopped or withdrawn")
        finally:
            stop.set()
            # a reply stopped while it writes ends at its next token: wait for that, so that
            # the next request finds its slot free and the tokens it holds (a question about
            # the answer, asked in its prompt, reads only itself); one stopped while it reads
            # ends after its batch, which is not waited for long
            worker.join(STOP_WAIT_SECONDS)
            with _RUNNING_LOCK:
                _RUNNING.discard(running)
            if timings is not None:  # the speed of every pass, one stopped early too
                self.pace.record(timings, threads)


def _primer_body(primer: str, slot: int, reply: int) -> dict[str, Any]:
    """The request reading ``primer`` as a system message into ``slot`` (kept there, as any
    prompt: ``cache_prompt``) and writing ``reply`` tokens after it."""
    return {"messages": [{"role": "system", "content": primer},
                         {"role": "user", "content": "Ready?"}],
            "max_tokens": reply, "temperature": 0.0, "top_k": 1, "cache_prompt": True,
            "id_slot": slot, "stream": True, "return_progress": True,
            "timings_per_token": True}


def _primed(server: Any, body: dict[str, Any]) -> dict[str, Any]:
    """llama.cpp's ``timings`` of a primer's request (``_primer_body``)."""
    chunks: list[Any] = []

    def take(chunk: Any) -> bool:
        chunks.append(chunk)
        return False  # never stopped

    try:
        server.handle_chat_completions(body, take)
    except Exception as exc:  # the bindings raise plain RuntimeError/ValueError
        raise LLMError(f"the local model failed reading its first prompt: {exc}") from exc
    return whole_reply(chunks).get("timings") or {}


def _timings(chunk: Any) -> dict[str, Any] | None:
    """What llama.cpp reports with a chunk of how far the reply has read and written."""
    timings = chunk.get("timings") if isinstance(chunk, dict) else None
    return timings if isinstance(timings, dict) else None


def _arrivals(chunks: queue.Queue[Any], done: object,
              alive: Callable[[], object] | None) -> Iterator[Any]:
    """The chunks until ``done``; meanwhile ``alive()`` every ``REPORT_SECONDS`` (the page that
    made the call may stop it there: Streamlit raises in its thread once Stop was pressed)."""
    told = time.monotonic()
    while True:
        try:
            chunk = chunks.get(timeout=None if alive is None else REPORT_SECONDS)
        except queue.Empty:
            chunk = None
        if alive is not None and time.monotonic() - told >= REPORT_SECONDS:
            alive()
            told = time.monotonic()
        if chunk is done:
            return
        if chunk is not None:
            yield chunk


def _load_server(config: EngineConfig, threads: int) -> Any:
    """llama.cpp's server engine for ``config``, decoding with ``threads``."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise LLMError("the local backend needs the llama.cpp bindings: pip install "
                       "xllamacpp (or run `make install`)") from exc
    params = xllamacpp.CommonParams()
    params.model.path = str(config.path)
    params.n_ctx = config.window * config.parallel  # llama.cpp splits it between slots
    params.n_parallel = config.parallel
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    # The prompt is read in batches of READ_BATCH tokens, and a reply can be stopped only
    # between them (``LocalEngine._chunks``): with llama.cpp's 2,048 a stopped question read on
    # for up to 89 s on a busy machine. See READ_BATCH for the cost.
    params.n_batch = params.n_ubatch = READ_BATCH
    # No host-memory copies of idle slots' prompts (llama.cpp keeps up to 8 GiB of them by
    # default: the model then added 1.9x its file to the process); each slot still reuses its
    # own last prompt (``cache_prompt``).
    params.cache_ram_mib = 0
    # An idle slot is chosen for a prompt by the share of it that slot already holds, above
    # this; else the one unused longest. llama.cpp's 0.1 missed a chat answer's slot: its
    # shared instructions (~50 tokens) are under a tenth of a 500-token prompt, so the answer
    # could land in the rewrite's slot and read them again. A tenth of that keeps the chat
    # template's few shared tokens (~4) from counting.
    params.slot_prompt_similarity = SLOT_SIMILARITY
    # Read the weights, not mapped: llama.cpp repacks them for the CPU's vector units, and with
    # a mapping the file's pages stayed resident beside the repacked copy (2.08 GB added for a
    # 1.12 GB file; read, 1.46 GB; with 2,048-token slots, about 1.3 GB).
    params.load_mode = xllamacpp.llama_load_mode.LLAMA_LOAD_MODE_NONE
    params.verbosity = -1  # llama.cpp's own log would go to stderr line by line
    params.use_jinja = True  # the GGUF's own chat template, tools and tool results included
    # The engine also listens on a loopback port; a random key keeps other programs out.
    params.api_keys = [secrets.token_hex(16)]
    try:
        return xllamacpp.Server(params)
    except Exception as exc:  # the bindings raise plain RuntimeError/ValueError
        raise LLMError(f"llama.cpp could not load {config.path}: {exc}. Check that the file is "
                       "a GGUF model (reinstall it with `make install`)") from exc


# Replies being decoded: a process that exits mid-reply stops them first (``_stop_running``);
# llama.cpp decoding while the interpreter tears the engine down crashed it (1 exit in 3).
_RUNNING: set[tuple[threading.Event, threading.Thread]] = set()
_RUNNING_LOCK = threading.Lock()
EXIT_WAIT_SECONDS = 10.0  # a reply stops at its next token or batch of prompt tokens


@atexit.register
def _stop_running() -> None:
    with _RUNNING_LOCK:
        running = list(_RUNNING)
    for stop, _ in running:
        stop.set()
    for _, worker in running:
        worker.join(EXIT_WAIT_SECONDS)


_ENGINES: dict[EngineConfig, LocalEngine] = {}
_ENGINES_LOCK = threading.Lock()


def shared_engine(config: EngineConfig) -> LocalEngine:
    """The process's engine for ``config``, loaded on first use (once, whoever asks first)."""
    with _ENGINES_LOCK:
        engine = _ENGINES.get(config)
        if engine is None:
            engine = _ENGINES[config] = LocalEngine(config)
            logger.info("loaded %s (%d threads: %s; %d slots of %d tokens)", config.path.name,
                        engine.threads, engine.choice.reason, config.parallel, config.window)
        return engine


def loaded_engines() -> list[LocalEngine]:
    """What this process has loaded (for the Settings page)."""
    with _ENGINES_LOCK:
        return list(_ENGINES.values())
