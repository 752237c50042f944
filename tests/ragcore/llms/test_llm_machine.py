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
    MAX_READING_TOKENS, MIN_READING_TOKENS, READING_SECONDS, Pace,
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


def test_the_reading_budget_is_what_the_model_reads_in_the_aimed_seconds():
    pace = Pace()
    assert pace.reading_budget(2, default=200, ceiling=500).tokens == 200  # nothing timed yet
    pace.record({"prompt_n": 300, "prompt_per_second": 60.0, "predicted_n": 40,
                 "predicted_per_second": 12.0}, threads=2)
    budget = pace.reading_budget(2, default=200, ceiling=500)
    assert budget.tokens == round(60 * READING_SECONDS, -1)
    assert "60 tokens/s" in budget.reason
    # Another thread count starts from what it measured itself (here: nothing).
    assert pace.reading_budget(1, default=200, ceiling=500).tokens == 200
    # A fast laptop reads no more than an answer was measured to need, nor than the window's
    # share; a crawling machine keeps a floor.
    pace.record({"prompt_n": 300, "prompt_per_second": 1000.0}, threads=8)
    assert pace.reading_budget(8, default=200, ceiling=500).tokens == MAX_READING_TOKENS
    assert pace.reading_budget(8, default=200, ceiling=180).tokens == 180
    pace.record({"prompt_n": 300, "prompt_per_second": 5.0}, threads=1)
    assert pace.reading_budget(1, default=200, ceiling=500).tokens == MIN_READING_TOKENS


def test_the_reading_budget_says_the_seconds_its_tokens_take_at_the_measured_rate():
    # Issue 65: "reads 17 tokens/s on 1 thread: 160 tokens in about 4 s", which take 9.4 s.
    pace = Pace()
    pace.record({"prompt_n": 300, "prompt_per_second": 17.0}, threads=1)
    budget = pace.reading_budget(1, default=200, ceiling=500)
    assert budget.tokens == MIN_READING_TOKENS == 160
    assert budget.reason == "reads 17 tokens/s on 1 thread: 160 tokens in about 9.4 s"
    pace.record({"prompt_n": 300, "prompt_per_second": 60.0}, threads=2)
    assert pace.reading_budget(2, default=200, ceiling=500).reason.endswith(
        f"{round(60 * READING_SECONDS, -1):.0f} tokens in about 4 s")


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
    server, threads = engine._begin()
    watch.others = 2.0
    assert engine.fit().threads == 2 and loads == [2]
    engine._end()
    assert engine.fit().threads == 1 and loads == [2, 1]


def test_an_engine_waits_between_reloads(loads, tmp_path, monkeypatch):
    monkeypatch.setattr(engine_module, "REFIT_SECONDS", 3600.0)
    watch = _Watch(0.0)
    engine = LocalEngine(EngineConfig(tmp_path / "m.gguf", 512, 0, 2), watch=watch)
    watch.others = 2.0
    assert engine.fit().threads == 2 and loads == [2]


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
