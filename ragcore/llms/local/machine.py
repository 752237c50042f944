"""The machine as it is now: the cores this process may use, how busy other programs keep them,
and how many threads llama.cpp should run with.

llama.cpp's threads wait for each other at every layer, so a thread on a core that another
program also wants runs late and holds the others back: on two cores kept busy by other
programs, two threads decoded 5-10x slower than one (2 cores, load 4-5: 1.5-2.7 tokens a second
against 8-17). ``choose_threads`` therefore gives the model only the cores other programs leave
free, at least one. How busy the others are is measured, not guessed from the load average
(which counts this process's own threads and lags a minute): ``MachineWatch`` reads the CPU
time of this process's cores (``/proc/stat``) and this process's own (``/proc/self/stat``)
every second in a daemon thread, and keeps a short moving average of the difference.

On a system without ``/proc`` (macOS, Windows) the load average stands in for the others'
demand, and without that, the machine is taken as idle.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

SAMPLE_SECONDS = 1.0  # how often the watch reads the CPU times
SMOOTHING = 0.5  # weight of the newest sample in the moving average (~3 s memory)
FREE_SHARE = 0.5  # a core counts as free when other programs use less than this share of it
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def allowed_cores() -> int:
    """The cores this process may use: its CPU affinity, capped by a cgroup CPU quota (a
    container given 1.5 CPUs may use 2 cores, 1.5 at a time: it gets 2)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_quota()
    if quota is not None:
        cores = min(cores, max(1, math.ceil(quota)))
    return max(1, cores)


def _cgroup_quota() -> float | None:
    try:
        limit, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return None if limit == "max" else int(limit) / int(period)


@dataclass(frozen=True, slots=True)
class MachineLoad:
    """What the cores this process may use are doing: ``others`` is how many of them other
    programs keep busy (0.0 .. cores), over the last few seconds."""

    cores: int
    others: float
    measured: bool  # False: no measurement yet (or none possible): taken as idle

    @property
    def free(self) -> float:
        return max(0.0, self.cores - self.others)


@dataclass(frozen=True, slots=True)
class ThreadChoice:
    """The threads the model runs with, and why (shown on the Settings page and in the trace)."""

    threads: int
    reason: str
    fixed: bool = False

    def as_dict(self) -> dict[str, object]:
        return {"threads": self.threads, "reason": self.reason, "fixed": self.fixed}


def choose_threads(load: MachineLoad, fixed: int | None = None) -> ThreadChoice:
    """``fixed`` threads when a setting says so; otherwise one per core other programs leave
    free (at least one)."""
    if fixed:
        return ThreadChoice(fixed, f"{fixed} set by hand (Settings 'CPU threads', or "
                                   "$RAGCORE_LLM_THREADS)", fixed=True)
    cores = load.cores
    if not load.measured:
        return ThreadChoice(cores, f"{_cores(cores)} this process may use; not measured yet")
    free = max(1, min(cores, math.floor(load.free + FREE_SHARE)))
    if free == cores:
        return ThreadChoice(cores, f"{_cores(cores)} free (other programs use "
                                   f"{load.others:.1f})")
    return ThreadChoice(free, f"other programs keep {load.others:.1f} of {_cores(cores)} busy: "
                              f"{_threads(free)} on the free ones, since a thread on a busy core "
                              "holds the others back")


def _cores(n: int) -> str:
    return f"{n} core" + ("" if n == 1 else "s")


def _threads(n: int) -> str:
    return f"{n} thread" + ("" if n == 1 else "s")


def _cpu_ticks(cores: set[int]) -> int | None:
    """Busy ticks of ``cores`` since boot (``/proc/stat``: all but idle and iowait)."""
    try:
        lines = Path("/proc/stat").read_text().splitlines()
    except OSError:
        return None
    busy = 0
    for line in lines:
        name, *fields = line.split()
        if not name.startswith("cpu") or name == "cpu" or int(name[3:]) not in cores:
            continue
        values = [int(v) for v in fields[:8]]
        busy += sum(values) - values[3] - values[4]
    return busy


def _own_ticks() -> int | None:
    """This process's CPU ticks (all its threads: user + system)."""
    try:
        stat = Path("/proc/self/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of the file)


class MachineWatch:
    """How busy other programs keep this process's cores, measured every ``interval`` seconds
    in a daemon thread (started by the first ``now``)."""

    def __init__(self, interval: float = SAMPLE_SECONDS) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._others: float | None = None
        self._thread: threading.Thread | None = None

    def now(self) -> MachineLoad:
        """The load as last measured (the first call measures for ``interval`` first)."""
        cores = allowed_cores()
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ragcore-machine-watch",
                                                daemon=True)
                self._thread.start()
                first = True
            else:
                first = False
        if first:
            self.sample()
        with self._lock:
            others = self._others
        if others is None:
            return _from_load_average(cores)
        return MachineLoad(cores, min(float(cores), others), measured=True)

    def sample(self) -> float | None:
        """Measure once, over ``interval`` seconds, and fold it into the average."""
        try:
            mine = set(os.sched_getaffinity(0))
        except AttributeError:
            return None
        start = time.monotonic(), _cpu_ticks(mine), _own_ticks()
        time.sleep(self.interval)
        end = time.monotonic(), _cpu_ticks(mine), _own_ticks()
        if None in start or None in end:
            return None
        elapsed_ticks = (end[0] - start[0]) * _TICKS
        others = max(0.0, ((end[1] - start[1]) - (end[2] - start[2])) / elapsed_ticks)
        with self._lock:
            previous = self._others
            self._others = others if previous is None else (
                SMOOTHING * others + (1 - SMOOTHING) * previous)
            return self._others

    def _run(self) -> None:
        while True:
            if self.sample() is None:
                return  # nothing to measure here: the load average stands in


def _from_load_average(cores: int) -> MachineLoad:
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return MachineLoad(cores, 0.0, measured=False)
    return MachineLoad(cores, min(float(cores), load), measured=True)


_WATCH = MachineWatch()


def machine_now() -> MachineLoad:
    """The process-wide watch's latest measure."""
    return _WATCH.now()
