"""The packaged model fitted to the machine as it is: threads from how busy other programs keep
the cores (``machine``), a reading budget from the measured speed (``pace``), and an engine that
reloads with other threads only when nothing runs (``engine``)."""

from __future__ import annotations

import multiprocessing
import time

import pytest

from ragcore.llms.local import engine as engine_module
from ragcore.llms.local.engine import EngineConfig, LocalEngine
from ragcore.llms.local.machine import MachineLoad, MachineWatch, choose_threads
from ragcore.llms.local.pace import (
    ANSWER_SECONDS, MAX_READING_TOKENS, MIN_READING_TOKENS, OTHER_TOKENS, PASS_SECONDS,
    READ_PER_BUDGET, REPLY_TOKENS, Pace, passage_tokens,
)


@pytest.mark.parametrize("cores, others, threads", [
    (2, 0.1, 2), (2, 0.4, 2), (2, 0.6, 1), (2, 1.0, 1), (2, 2.0, 1),
    (8, 0.2, 8), (8, 2.0, 6), (8, 7.9, 1), (1, 0.0, 1),
])
def test_the_model_gets_the_cores_other_programs_leave_free(cores, others, threads):
    choice = choose_threads(MachineLoad(cores, others, measured=True))
    assert choice.threads == threads
    assert not choice.fixed
    if threads < cores:
        assert "busy" in choice.reason and f"{others:.1f}" in choice.reason


def test_a_thread_setting_wins_and_says_so():
    choice = choose_threads(MachineLoad(2, 2.0, measured=True), fixed=3)
    assert (choice.threads, choice.fixed) == (3, True)
    assert "by hand" in choice.reason


def test_unmeasured_the_model_takes_every_core_it_may_use():
    choice = choose_threads(MachineLoad(4, 0.0, measured=False))
    assert choice.threads == 4 and "not measured" in choice.reason


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.slow
def test_the_watch_sees_two_busy_programs_and_the_choice_leaves_their_cores():
    watch = MachineWatch(interval=0.5)
    hogs = [multiprocessing.Process(target=_spin, args=(6.0,)) for _ in range(2)]
    for hog in hogs:
        hog.start()
    try:
        time.sleep(0.5)
        for _ in range(4):
            watch.sample()
        load = watch.now()
    finally:
        for hog in hogs:
            hog.terminate()
            hog.join()
    assert load.measured and load.others >= min(1.5, load.cores - 0.3)
    assert choose_threads(load).threads <= max(1, load.cores - 1)


def test_the_reading_budget_leaves_the_whole_answer_within_the_aimed_seconds():
    pace = Pace()
    assert pace.reading_budget(2, default=200, ceiling=500).tokens == 200  # nothing timed yet
    pace.record({"prompt_n": 300, "prompt_per_second": 50.0, "predicted_n": 40,
                 "predicted_per_second": 10.0}, threads=2)
    budget = pace.reading_budget(2, default=200, ceiling=500)
    assert MIN_READING_TOKENS < budget.tokens < MAX_READING_TOKENS
    # The passages, the prompt's other tokens and the short reply: the aimed whole answer.
    read = budget.tokens * READ_PER_BUDGET + OTHER_TOKENS
    whole = read / 50.0 + REPLY_TOKENS / 10.0 + PASS_SECONDS
    assert whole == pytest.approx(ANSWER_SECONDS, abs=0.2)
    assert "50 tokens/s" in budget.reason
    # Another thread count starts from what it measured itself (here: nothing).
    assert pace.reading_budget(1, default=200, ceiling=500).tokens == 200
    # A fast laptop reads no more than an answer was measured to need, nor than the window's
    # share; a crawling machine keeps a floor.
    pace.record({"prompt_n": 300, "prompt_per_second": 1000.0}, threads=8)
    assert pace.reading_budget(8, default=200, ceiling=500).tokens == MAX_READING_TOKENS
    assert pace.reading_budget(8, default=200, ceiling=180).tokens == 180
    pace.record({"prompt_n": 300, "prompt_per_second": 5.0}, threads=1)
    assert pace.reading_budget(1, default=200, ceiling=500).tokens == MIN_READING_TOKENS


def test_a_slower_machine_reads_fewer_passage_tokens_in_the_same_wait():
    # Issue 65: 160 passage tokens, the old floor, took 5-6.7 s alone on one thread reading
    # 24-32 tokens a second, and the whole answer 8.6-11.4 s.
    fast, slow = passage_tokens(80.0, 12.0), passage_tokens(40.0, 8.0)
    assert fast > 2 * slow > 0
    assert passage_tokens(30.0, 6.5) < 160
    # Writing not yet timed: a share of the reading speed stands in for it.
    assert passage_tokens(40.0, None) == passage_tokens(40.0, 8.0)
    # A machine that cannot write the reply in time at all gets the floor, not a negative.
    pace = Pace()
    pace.record({"prompt_n": 300, "prompt_per_second": 20.0, "predicted_n": 10,
                 "predicted_per_second": 1.0}, threads=1)
    assert passage_tokens(20.0, 1.0) < 0
    assert pace.reading_budget(1, default=200, ceiling=500).tokens == MIN_READING_TOKENS


def test_the_reading_budget_says_the_seconds_its_tokens_take_at_the_measured_rate():
    # Issue 65: "reads 17 tokens/s on 1 thread: 160 tokens in about 4 s", which take 9.4 s.
    pace = Pace()
    pace.record({"prompt_n": 300, "prompt_per_second": 17.0}, threads=1)
    budget = pace.reading_budget(1, default=200, ceiling=500)
    assert budget.tokens == MIN_READING_TOKENS == 100
    assert budget.reason == "reads 17 tokens/s on 1 thread: 100 tokens in about 5.9 s"
    pace.record({"prompt_n": 300, "prompt_per_second": 60.0, "predicted_n": 40,
                 "predicted_per_second": 12.0}, threads=2)
    tokens = passage_tokens(60.0, 12.0)
    assert pace.reading_budget(2, default=200, ceiling=500).reason.endswith(
        f"{tokens} tokens in about {tokens / 60:.1f} s")


def test_a_short_read_does_not_time_the_reading():
    pace = Pace()
    pace.record({"prompt_n": 8, "prompt_per_second": 3.0, "predicted_n": 20,
                 "predicted_per_second": 15.0}, threads=2)
    speeds = pace.speeds(2)
    assert speeds.reading is None and speeds.writing == 15.0


class _Watch:
    def __init__(self, others: float) -> None:
        self.others = others

    def __call__(self) -> MachineLoad:
        return MachineLoad(2, self.others, measured=True)


@pytest.fixture
def loads(monkeypatch):
    """The engine's servers as the thread counts they were loaded with (no model)."""
    loaded: list[int] = []

    def load(config, threads):
        loaded.append(threads)
        return object()

    monkeypatch.setattr(engine_module, "_load_server", load)
    monkeypatch.setattr(engine_module, "REFIT_SECONDS", 0.0)
    return loaded


def test_a_fitted_engine_reloads_with_the_threads_the_machine_now_allows(loads, tmp_path):
    watch = _Watch(0.1)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2), watch=watch)
    assert loads == [2] and engine.threads == 2
    watch.others = 1.8  # two programs start
    assert engine.fit().threads == 1
    assert loads == [2, 1]
    assert engine.fit().threads == 1 and loads == [2, 1]  # the same choice: no reload
    watch.others = 0.0
    assert engine.fit().threads == 2 and loads == [2, 1, 2]


def test_an_engine_never_reloads_while_a_reply_runs(loads, tmp_path):
    watch = _Watch(0.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2), watch=watch)
    server, threads, slot = engine._begin({})
    watch.others = 2.0
    assert engine.fit().threads == 2 and loads == [2]
    engine._end(slot)
    assert engine.fit().threads == 1 and loads == [2, 1]


def test_an_engine_waits_between_reloads(loads, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "REFIT_SECONDS", 3600.0)
    watch = _Watch(0.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2), watch=watch)
    watch.others = 2.0
    assert engine.fit().threads == 2 and loads == [2]


def test_a_question_reloads_before_its_first_call_only(loads, tmp_path):
    # Issue 65: a reload between an answer and its check emptied the slots' caches, so the check
    # read the answer's whole prompt again (967 tokens for a 462-token prompt; "Why?" 1,382).
    from ragcore.llms.slots import one_turn

    watch = _Watch(0.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2), watch=watch)
    with one_turn():
        watch.others = 1.8  # two programs start before the question's first call
        engine._end(engine._begin({})[2])
        assert loads == [2, 1]
        watch.others = 0.0  # ... and stop between its answer and its check
        engine._end(engine._begin({})[2])
        assert engine.fit().threads == 1 and loads == [2, 1]
    with one_turn():  # the next question fits the machine as it is then
        assert engine.fit().threads == 2 and loads == [2, 1, 2]
    watch.others = 1.8  # outside a question every call may reload
    assert engine.fit().threads == 1 and loads == [2, 1, 2, 1]

def test_threads_set_by_hand_are_never_refitted(loads, tmp_path):
    watch = _Watch(2.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 2, 2), watch=watch)
    assert engine.fit().threads == 2 and engine.fit().fixed and loads == [2]


def test_the_environment_can_fix_the_threads(monkeypatch):
    from ragcore.errors import ConfigError
    from ragcore.llms.local import THREADS_ENV, threads_from_env

    monkeypatch.setenv(THREADS_ENV, "3")
    assert threads_from_env() == 3
    monkeypatch.setenv(THREADS_ENV, "")
    assert threads_from_env() is None  # fitted to the machine
    monkeypatch.setenv(THREADS_ENV, "two")
    with pytest.raises(ConfigError, match="whole number of threads"):
        threads_from_env()


class _TimedServer:
    """llama.cpp's server as the primer meets it: a short reply, then the pass's timings."""

    def __init__(self, threads: int) -> None:
        self.threads, self.bodies = threads, []

    def handle_chat_completions(self, body, take):
        self.bodies.append(body)
        take({"choices": [{"delta": {"content": "Yes"}}]})
        take({"choices": [{"delta": {}, "finish_reason": "length"}],
              "timings": {"prompt_n": 110, "prompt_per_second": 30.0 * self.threads,
                          "predicted_n": 6, "predicted_per_second": 6.0 * self.threads}})


def test_the_engine_times_its_primer_whenever_the_weights_load(monkeypatch, tmp_path):
    # Issue 65: a fresh process's first answer had the budget of an unmeasured pace (200
    # tokens: 14.6 s on one thread, where the answers after it took 7-9 s).
    servers: list[_TimedServer] = []

    def load(config, threads):
        servers.append(_TimedServer(threads))
        return servers[-1]

    monkeypatch.setattr(engine_module, "_load_server", load)
    monkeypatch.setattr(engine_module, "REFIT_SECONDS", 0.0)
    watch = _Watch(0.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2,
                                      primers=("Be brief.", "Chat.", "No third slot.")),
                         watch=watch)
    first, second = servers[0].bodies  # one primer a slot, each pinned to its own
    assert first["messages"][0] == {"role": "system", "content": "Be brief."}
    assert second["messages"][0] == {"role": "system", "content": "Chat."}
    assert (first["id_slot"], second["id_slot"]) == (0, 1)
    assert first["cache_prompt"] and first["max_tokens"] == engine_module.PRIMER_REPLY
    assert second["max_tokens"] == 1  # untimed: it writes no more than it must
    assert engine.pace.speeds(2).reading == 60.0 and engine.pace.speeds(2).writing == 12.0
    watch.others = 1.8  # reloaded with one thread: that count is timed before an answer too
    assert engine.fit().threads == 1 and len(servers) == 2 and len(servers[1].bodies) == 2
    assert engine.pace.speeds(1).reading == 30.0  # the first primer's timing only


def test_an_engine_without_a_primer_reads_nothing_at_load(monkeypatch, tmp_path):
    server = _TimedServer(2)
    monkeypatch.setattr(engine_module, "_load_server", lambda config, threads: server)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 2, 2), watch=_Watch(0.0))
    assert server.bodies == [] and engine.pace.speeds(2).reading is None
