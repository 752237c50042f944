"""Admission to a shared engine's slots (``ragcore.llms.slots``): first come, first served, each
waiter told its place, a cancelled place given back at once; then the same through
``LocalEngine`` (a scripted llama.cpp server, and the real packaged model)."""

from __future__ import annotations

import gc
import queue
import threading
import time
from pathlib import Path

import pytest

from ragcore.errors import ConfigError, LLMError
from ragcore.llms import local_models
from ragcore.llms.slots import QueueState, SlotQueue, waiting_reporter
from ragcore.types import Message

SETTLE = 30  # seconds a test waits for another thread before calling it a hang (not a measure)


class Stop(BaseException):
    """What Streamlit raises inside a reporter's st call when its user presses Stop."""


def waiter(ticket, results: queue.Queue, *, report=None, started=None) -> threading.Thread:
    """A thread waiting on ``ticket`` (with a reporter), putting ("ran", ticket) or the error."""

    def run() -> None:
        try:
            if report is None:
                ticket.wait()
            else:
                with waiting_reporter(report, started=started):
                    ticket.wait()
            results.put(("ran", ticket))
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            results.put(("raised", exc))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def places(reports: queue.Queue, until: int, seen: tuple[int, ...] = ()) -> list[int]:
    """The places reported after ``seen``, repeats (the periodic re-telling) folded, up to
    ``until``."""
    seen = list(seen)
    while not seen or seen[-1] != until:
        ahead = reports.get(timeout=SETTLE)
        if not seen or seen[-1] != ahead:
            seen.append(ahead)
    return seen


# -- the queue ----------------------------------------------------------------------------------

def test_free_slots_are_taken_at_once_and_the_rest_wait():
    slots = SlotQueue(2)
    first, second, third = slots.enter(), slots.enter(), slots.enter()
    assert first.running and second.running and not third.running
    assert slots.state() == QueueState(slots=2, running=2, waiting=1)
    assert first.wait(0) and not third.wait(0)  # a zero timeout only looks


def test_waiters_run_in_the_order_they_came():
    slots = SlotQueue(1)
    holder = slots.enter()
    tickets = [slots.enter() for _ in range(4)]
    order: list[int] = []
    done = queue.Queue()

    def take_turn(i: int) -> None:
        with tickets[i] as ticket:
            ticket.wait()
            order.append(i)
        done.put(i)

    threads = [threading.Thread(target=take_turn, args=(i,), daemon=True) for i in (3, 1, 0, 2)]
    for thread in threads:  # started out of order: the order of enter() decides
        thread.start()
    holder.close()
    for _ in tickets:
        done.get(timeout=SETTLE)
    assert order == [0, 1, 2, 3]
    assert slots.state() == QueueState(1, 0, 0)


def test_each_waiter_knows_how_many_wait_before_it():
    slots = SlotQueue(1)
    running, *waiting = [slots.enter() for _ in range(4)]
    assert [running.ahead, *(t.ahead for t in waiting)] == [0, 0, 1, 2]


def test_a_cancelled_place_is_given_back_at_once():
    slots = SlotQueue(1)
    running, second, third = slots.enter(), slots.enter(), slots.enter()
    second.close()  # cancelled while waiting: the next one moves up at once
    assert third.ahead == 0 and slots.state() == QueueState(1, 1, 1)
    running.close()  # done: the next waiter holds the slot before close() returns
    assert third.running and slots.state() == QueueState(1, 1, 0)
    running.close()  # closing twice changes nothing
    assert slots.state() == QueueState(1, 1, 0)


def test_a_waiter_hears_its_place_as_it_changes_then_that_it_started():
    slots = SlotQueue(1)
    running, second, third = slots.enter(), slots.enter(), slots.enter()
    reports: queue.Queue = queue.Queue()
    started = threading.Event()
    results: queue.Queue = queue.Queue()
    waiter(third, results, report=reports.put, started=started.set)
    assert reports.get(timeout=SETTLE) == 1  # told at once, before anything changes
    second.close()
    assert places(reports, until=0, seen=(1,)) == [1, 0]
    assert not started.is_set()
    running.close()
    assert results.get(timeout=SETTLE) == ("ran", third) and started.wait(SETTLE)


def test_a_request_that_runs_at_once_reports_nothing():
    calls: list[int] = []
    with waiting_reporter(calls.append, started=lambda: calls.append(-1)):
        ticket = SlotQueue(1).enter()
        assert ticket.wait()
    assert calls == []


def test_a_reporter_that_raises_ends_the_wait_and_frees_the_place():
    slots = SlotQueue(1)
    running = slots.enter()

    def stop_pressed(ahead: int) -> None:
        raise Stop(f"stopped with {ahead} ahead")

    waiting = slots.enter()
    with waiting_reporter(stop_pressed), pytest.raises(Stop, match="0 ahead"):
        waiting.wait()
    assert slots.state() == QueueState(1, 1, 0)
    running.close()
    assert slots.enter().running  # the slot went to nobody in the meantime


def test_a_reporter_raising_in_another_waiters_thread_lets_the_next_move_up():
    slots = SlotQueue(1)
    running, stopped, patient = slots.enter(), slots.enter(), slots.enter()
    told = threading.Event()
    stop = threading.Event()

    def report(ahead: int) -> None:
        told.set()
        if stop.wait(SETTLE):
            raise Stop()

    results: queue.Queue = queue.Queue()
    waiter(stopped, results, report=report)
    assert told.wait(SETTLE)
    stop.set()
    kind, error = results.get(timeout=SETTLE)
    assert kind == "raised" and isinstance(error, Stop)
    assert patient.ahead == 0
    running.close()
    assert patient.running


def test_a_ticket_cancelled_from_elsewhere_ends_its_wait_with_an_error():
    slots = SlotQueue(1)
    slots.enter()
    ticket = slots.enter()
    results: queue.Queue = queue.Queue()
    reports: queue.Queue = queue.Queue()
    waiter(ticket, results, report=reports.put)
    reports.get(timeout=SETTLE)
    ticket.close()
    kind, error = results.get(timeout=SETTLE)
    assert kind == "raised" and isinstance(error, LLMError) and "ask again" in str(error)


def test_the_reporter_belongs_to_the_block_that_set_it():
    slots = SlotQueue(1)
    slots.enter()
    outside: list[int] = []
    with waiting_reporter(outside.append):
        pass
    ticket = slots.enter()
    assert not ticket.wait(0) and outside == []


def test_no_slots_is_refused_with_the_fix():
    with pytest.raises(ConfigError, match=r"slots \(0\) must be at least 1"):
        SlotQueue(0)


# -- through the engine (a scripted llama.cpp server) ------------------------------------------

class ScriptedServer:
    """llama.cpp's server engine as ``LocalEngine`` calls it (always streamed, with progress):
    ``body["batches"]`` progress chunks while it reads the prompt (0: none), then the tokens of
    ``body["reply"]`` and a last chunk saying why it finished, or numbered tokens until told to
    stop. ``stopped`` is set when a call back told it to stop; ``batches_read`` counts."""

    def __init__(self) -> None:
        self.stopped = threading.Event()
        self.batches_read = 0

    def handle_chat_completions(self, body, take):
        assert body["stream"] and body["return_progress"]
        for n in range(body.get("batches", 0)):
            self.batches_read += 1
            time.sleep(0.002)  # a batch of prompt tokens read
            if take({"choices": [{"delta": {}}], "prompt_progress": {"processed": n}}):
                return self.stopped.set()
        tokens = body.get("reply") or (f"{n} " for n in range(100_000))
        for token in tokens:
            if take({"choices": [{"delta": {"content": token}}]}):
                return self.stopped.set()
        take({"choices": [{"delta": {}, "finish_reason": "stop"}]})
        return None


WHOLE = {"reply": ["who", "le"]}  # a short reply, streamed to its end
LONG_READ = {"batches": 10**6}  # a prompt read for minutes


@pytest.fixture
def engine(monkeypatch):
    from ragcore.llms.local import engine as engine_module

    monkeypatch.setattr(engine_module, "_load_server", lambda config, threads: ScriptedServer())
    config = engine_module.EngineConfig(Path("scripted.gguf"), 256, 1, 1)
    return engine_module.LocalEngine(config)


def test_a_stream_holds_the_slot_until_it_is_closed(engine):
    first = engine.stream({})
    assert engine.queue_state() == QueueState(1, 0, 0)  # no slot before the first chunk is asked
    next(first)
    assert engine.queue_state() == QueueState(1, 1, 0)
    second = engine.stream({})
    reports: queue.Queue = queue.Queue()
    got: queue.Queue = queue.Queue()

    def read() -> None:
        with waiting_reporter(reports.put):
            got.put(next(second))

    threading.Thread(target=read, daemon=True).start()
    assert reports.get(timeout=SETTLE) == 0  # next in line, waiting for the running reply
    assert engine.queue_state() == QueueState(1, 1, 1)
    first.close()
    assert got.get(timeout=SETTLE) == "0 "
    second.close()
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_a_dropped_or_failed_stream_leaks_no_slot(engine, monkeypatch):
    stream = engine.stream({})
    next(stream)
    del stream  # dropped mid-reply without close(): collected, its slot given back
    gc.collect()
    assert engine.queue_state() == QueueState(1, 0, 0)

    def refuse(body, take):
        raise RuntimeError("slot crashed")

    monkeypatch.setattr(engine._server, "handle_chat_completions", refuse)
    with pytest.raises(LLMError, match="slot crashed"):
        list(engine.stream({}))
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_complete_waits_its_turn_behind_a_running_stream(engine):
    stream = engine.stream({})
    next(stream)
    reports: queue.Queue = queue.Queue()
    replies: queue.Queue = queue.Queue()

    def ask() -> None:
        with waiting_reporter(reports.put):
            replies.put(engine.complete(WHOLE))

    threading.Thread(target=ask, daemon=True).start()
    reports.get(timeout=SETTLE)
    assert replies.empty()
    stream.close()
    assert replies.get(timeout=SETTLE)["choices"][0]["message"]["content"] == "whole"
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_one_questions_calls_share_its_place_in_line(engine):
    from ragcore.llms import one_turn

    with one_turn():
        assert engine.complete(WHOLE)  # the gate's pass takes the question's slot
        other: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: other.put(engine.complete(WHOLE)), daemon=True).start()
        for _ in range(SETTLE * 100):  # another person's question is now in line
            if engine.queue_state().waiting == 1:
                break
            threading.Event().wait(0.01)
        assert engine.queue_state() == QueueState(1, 1, 1)
        stream = engine.stream({})
        assert next(stream) == "0 "  # the answer does not queue behind them: same turn
        stream.close()
        assert engine.queue_state() == QueueState(1, 1, 1) and other.empty()
    # The question's block ended: its slot goes to the next in line.
    assert other.get(timeout=SETTLE)["choices"][0]["message"]["content"] == "whole"
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_calls_of_a_pool_inside_a_turn_share_it_without_deadlock(engine):
    # refine/tree modes complete several prompts in a thread pool (``synthesis.steps``): on a
    # one-slot engine, two questions doing so at once must both finish.
    from ragcore.llms import one_turn
    from ragcore.synthesis.steps import _complete_all
    from ragcore.synthesis.steps import Call

    class EngineLLM:
        model = "scripted"

        def stream(self, messages):
            yield engine.complete(WHOLE)["choices"][0]["message"]["content"]

    calls = [Call("qa", [Message("user", f"part {n}")]) for n in range(3)]
    done: queue.Queue = queue.Queue()

    def question() -> None:
        with one_turn():
            engine.complete(WHOLE)  # the gate's pass: the question holds the one slot from here
            done.put(_complete_all(calls, EngineLLM(), None, max_concurrency=3))

    threads = [threading.Thread(target=question, daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    assert [done.get(timeout=SETTLE * 4) for _ in threads] == [["whole"] * 3] * 2
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_a_turn_ended_while_the_prompt_is_read_stops_the_reading(engine):
    """Stop (or Cancel, or a closed tab) ends the question's turn while llama.cpp still reads
    its prompt: the reading stops at its next batch, not at the first token minutes later."""
    from ragcore.llms import one_turn

    turns: queue.Queue = queue.Queue()
    outcome: queue.Queue = queue.Queue()

    def question() -> None:
        with one_turn() as turn:
            turns.put(turn)
            try:
                outcome.put(list(engine.stream(LONG_READ)))
            except LLMError as exc:
                outcome.put(exc)

    threading.Thread(target=question, daemon=True).start()
    turn = turns.get(timeout=SETTLE)
    while engine._server.batches_read < 3:
        time.sleep(0.01)
    turn.close()  # what the page's run ending does, from another thread
    assert engine._server.stopped.wait(SETTLE)
    assert isinstance(outcome.get(timeout=SETTLE), LLMError)  # never a short reply as whole
    read = engine._server.batches_read
    time.sleep(0.1)
    assert engine._server.batches_read == read < 10**6


def test_a_reader_that_stops_reading_stops_the_prompt_reading(engine):
    from ragcore.chat.progress import pulled

    reading = pulled(engine.stream(LONG_READ), every=0.01)
    assert next(reading) is None  # silent: the model reads
    while engine._server.batches_read < 3:
        time.sleep(0.01)
    reading.close()  # the page stopped reading (Stop): no chunk will ever come to close it
    assert engine._server.stopped.wait(SETTLE)


def test_a_page_stopped_while_the_model_reads_in_its_thread_stops_the_reading(engine):
    """A call read in the page's own thread (a follow-up's rewrite): the page is asked if it is
    still there while the model reads in silence; Streamlit raises there after Stop."""

    class Stopped(BaseException):  # as Streamlit's StopException: not an Exception
        pass

    asked = []

    def alive() -> None:
        asked.append(engine._server.batches_read)
        if len(asked) == 3:
            raise Stopped

    with waiting_reporter(lambda ahead: None, alive=alive), pytest.raises(Stopped):
        engine.complete(LONG_READ)
    assert engine._server.stopped.wait(SETTLE) and asked == sorted(asked)
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_a_whole_reply_is_read_from_the_stream(engine):
    reply = engine.complete({**WHOLE, "batches": 3})
    assert reply["choices"][0]["message"]["content"] == "whole"
    assert reply["choices"][0]["finish_reason"] == "stop" and not engine._server.stopped.is_set()


# -- the real packaged model --------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not local_models.SMOLLM2_135M.installed,
                    reason="the packaged models are installed by `make install`")
def test_three_questions_on_one_slot_are_answered_in_turn():
    from ragcore.llms.local import LocalLLM

    llm = LocalLLM("smollm2-135m", parallel=1, num_output=400)
    engine = llm._engine
    ask = [Message("user", "Count from 1 to 300, one number a line.")]
    first, second, third = llm.stream(ask), llm.stream(ask), llm.stream(ask)
    next(first)
    chunks: dict[str, queue.Queue] = {"second": queue.Queue(), "third": queue.Queue()}
    reports: queue.Queue = queue.Queue()

    def read(name: str, stream, report) -> None:
        with waiting_reporter(report):
            chunks[name].put(next(stream))

    threading.Thread(target=read, args=("second", second, lambda ahead: None),
                     daemon=True).start()
    for _ in range(SETTLE * 100):  # the second is in line before the third comes
        if engine.queue_state().waiting == 1:
            break
        threading.Event().wait(0.01)
    assert engine.queue_state() == QueueState(1, 1, 1)
    threading.Thread(target=read, args=("third", third, reports.put), daemon=True).start()
    assert reports.get(timeout=SETTLE) == 1
    assert engine.queue_state() == QueueState(1, 1, 2)
    first.close()  # the slot goes to the second at once; the third is next
    assert chunks["second"].get(timeout=SETTLE)
    assert places(reports, until=0, seen=(1,)) == [1, 0]
    assert chunks["third"].empty()
    second.close()
    assert chunks["third"].get(timeout=SETTLE)
    third.close()
    assert engine.queue_state() == QueueState(1, 0, 0)


def test_a_wait_is_estimated_from_the_measured_holds_and_the_running_ones_time_left():
    now = [0.0]
    line = SlotQueue(1, clock=lambda: now[0])
    assert line.expected_wait(0) is None  # nothing timed yet: no estimate, rather than a guess
    for seconds in (40.0, 60.0, 50.0):  # three questions timed: their median is 50 s
        with line.enter() as ticket:
            ticket.wait()
            now[0] += seconds
    running = line.enter()
    running.wait()
    now[0] += 20.0
    assert line.expected_wait(0) == 30.0  # the running question's 30 s left
    assert line.expected_wait(2) == 130.0  # and two whole questions ahead
    now[0] += 45.0
    assert line.expected_wait(0) == 0.0  # over its typical time: any moment, never negative
    running.close()  # its 65 s are measured too: 40, 50, 60, 65
    assert line.expected_wait(1) == 60.0
