"""How long a running job has left, and how sure that is: the time the app, the CLI's bar and
``ragcore jobs`` show.

``estimate.py`` counts a job's chunks (done, in all, and the range the total may still fall in
while some files are not split yet); this module turns chunks into seconds, timing them in
tokens once the job has measured some (``Pace``): a model's time goes by tokens, and the pace
of a PDF's shorter passages overstated that of a novel's to come. The middle figure divides
the work left by a rate that blends this computer's measured rate (``rates.py``) with the
job's own, the job's weighing more as it runs (all of it after ``TRUST_SECONDS``, then its
rate over the last ``TRUST_SECONDS``). The range around it takes the count's range and the
fastest and slowest of the rates seen: on a computer that other work slows down, the measured
rate and the job's own differ, and the range says by how much (an upload told "about 7 s" took
16.9 s under load) until the job's own has been measured for ``PRIOR_SECONDS``; by as much
as they differ (at most ``SWAY``), the rest of the job may go slower than its start, less so as
less is left (``sway``). The range is said when it is wide, the middle figure (within the
rates seen) when it is not.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

TRUST_SECONDS = 60.0  # after this long embedding, the job's own rate is all that counts
MIN_OBSERVED = 1.0  # seconds of embedding before the job's own rate says anything
# The kept rate is an end of the range until the job has measured its own over a few slices
# (``SLICE_SECONDS`` each): on a busier computer than when it was kept, it no longer holds.
PRIOR_SECONDS = 10.0
BUSY = 2.5  # the walk's upload took 2.4 times as long as its measured rate said
WIDE = 1.25  # a range whose ends differ by more than this factor is said as a range
# A computer's pace, once off its kept rate, sways on: the walk's upload, its rate measured 13 s
# in, took 1.35 times as long as it said (about 1.2 once its passages' length is counted).
SWAY = 1.5


def human_duration(seconds: float) -> str:
    """'40 s', '2 min 10 s', '12 min', '6.1 h'."""
    if seconds < 90:
        return f"{max(1, round(seconds))} s"
    if seconds < 600:  # to the 10 s: "2 min" could mean 90 s or 150 s
        tens = round(seconds / 10)
        return f"{tens // 6} min" + (f" {tens % 6}0 s" if tens % 6 else "")
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


def time_left(done: float, total: float, *, prior_rate: float, observed_done: float,
              observed_seconds: float, trust_seconds: float | None = None) -> float | None:
    """Seconds left for ``total - done`` chunks (None: no rate to go by yet).

    The seconds a chunk takes blend the machine's rate (``prior_rate``) with the job's own
    (``observed_done`` chunks in ``observed_seconds``), the job's weighing more as it runs."""
    trust = TRUST_SECONDS if trust_seconds is None else trust_seconds
    left = max(total - done, 0)
    own = observed_done / observed_seconds if observed_seconds >= MIN_OBSERVED else 0.0
    if own <= 0:
        return left / prior_rate if prior_rate > 0 else None
    weight = 1.0 if prior_rate <= 0 else min(1.0, observed_seconds / trust)
    per_chunk = weight / own + (1 - weight) / (prior_rate if prior_rate > 0 else own)
    return left * per_chunk


@dataclass(slots=True, frozen=True)
class Pace:
    """The unit a job's work is timed in: tokens of the text embedded once the job has measured
    them (a model's time goes by tokens: a PDF's passages, 158 on average, went 12 % faster
    than a novel's, 178; short records' several times), else passages. ``done``, ``base`` and
    ``recent_base`` are in that unit, ``per_left`` is a passage left's (this computer's kept
    rate, in chunks a second, was measured on passages of text: it is taken to be of passages
    like those)."""

    done: float
    base: float
    recent_base: float
    per_left: float = 1.0


def pace_of(job: Any) -> Pace:
    """``job``'s work in tokens when it measured them (``estimate.JobWork``), else passages."""
    measured = job.tokens_done > job.tokens_base and job.work_done > job.work_base
    if not measured or job.tokens_per_left <= 0:
        return Pace(job.work_done, job.work_base, job.rate_base)
    return Pace(job.tokens_done, job.tokens_base, job.rate_tokens_base, job.tokens_per_left)


def rates_seen(job: Any, pace: Pace | None = None) -> list[float]:
    """The units (``pace``: tokens or chunks) a second a job's time may go at: its own over the
    whole run and over the last ``TRUST_SECONDS`` (each once measured for ``MIN_OBSERVED``),
    and this computer's kept rate for the first ``PRIOR_SECONDS``; with none of its own yet,
    also that rate slowed ``BUSY`` times (the computer may be busier than when it was
    measured)."""
    pace = pace or pace_of(job)
    rates = own_rates(job, pace)
    whole = job.work_updated_at - job.work_started_at if job.work_started_at else 0.0
    prior = job.rate * pace.per_left
    if prior > 0 and whole < PRIOR_SECONDS:
        rates += [prior] if rates else [prior, prior / BUSY]
    return rates


def own_rates(job: Any, pace: Pace) -> list[float]:
    """The job's own rate over its whole run and over the last ``TRUST_SECONDS``, each once
    measured for ``MIN_OBSERVED``."""
    rates = []
    for since, base in ((job.work_started_at, pace.base), (job.rate_since, pace.recent_base)):
        seconds = job.work_updated_at - since if since else 0.0
        if seconds >= MIN_OBSERVED and pace.done > base:
            rates.append((pace.done - base) / seconds)
    return rates


def sway(job: Any, pace: Pace) -> float:
    """How many times slower than at its slowest rate seen the rest of a job may go: by as much
    as its own rate and this computer's kept one differ (at most ``SWAY``), in proportion to
    the share of its work left; 1 while it has no rate of its own."""
    own, prior = own_rates(job, pace), job.rate * pace.per_left
    if not own or prior <= 0 or not job.work_total:
        return 1.0
    differ = min(max(own[0], prior) / min(own[0], prior), SWAY)
    return 1 + (differ - 1) * max(job.work_total - job.work_done, 0) / job.work_total


@dataclass(slots=True, frozen=True)
class TimeLeft:
    """A running job's time left, ``low`` to ``high`` around ``seconds``; ``partial``: OCR's
    alone, no embedding rate known yet."""

    seconds: float
    partial: bool = False
    low: float | None = None
    high: float | None = None

    def describe(self) -> str:
        """'about 4 min left', 'between 7 s and 15 s left', or 'OCR: about 4 min left;
        embedding not measured yet'; under a second, 'almost done' (an 'about 1 s left' would
        stay on screen while the last slice is embedded)."""
        if self.partial:
            return f"OCR: about {human_duration(self.seconds)} left; embedding not measured yet"
        low = self.seconds if self.low is None else self.low
        high = self.seconds if self.high is None else self.high
        if high < 1:
            return "almost done"
        shorter, longer = human_duration(low), human_duration(high)
        if high > WIDE * low and shorter != longer:
            return f"between {shorter} and {longer} left"
        return f"about {human_duration(min(max(self.seconds, low), high))} left"


def job_time_left(job: Any, now: float | None = None) -> TimeLeft | None:
    """A ``Job``'s time left: its work left (``pace_of``) at this computer's rate blended with
    its own (``time_left``), the range from its count's range at the fastest and slowest of its
    rates (``rates_seen``), plus its scanned pages left to OCR. With no embedding rate at all yet,
    OCR's time alone, marked partial. None before the work is counted or once it is embedded."""
    if not job.active or job.state in ("queued", "summarising"):
        return None
    ocr = job.ocr_left * job.ocr_page_seconds
    observed = job.work_updated_at - job.rate_since if job.rate_since else 0.0
    pace = pace_of(job)
    left = time_left(0, max(job.work_total - job.work_done, 0) * pace.per_left,
                     prior_rate=job.rate * pace.per_left,
                     observed_done=pace.done - pace.recent_base,
                     observed_seconds=observed) if job.work_total else None
    if left is None:  # minutes of OCR are worth saying before the embedder is timed
        return TimeLeft(ocr, partial=True) if ocr > 0 else None
    if job.work_done >= job.work_total and ocr <= 0:
        return None  # every passage embedded: the index is written, in seconds no rate tells
    rates = rates_seen(job, pace)
    if not rates:
        return TimeLeft(left + ocr)
    fewest = max(min(job.work_low or job.work_total, job.work_total) - job.work_done, 0)
    most = max(max(job.work_high, job.work_total) - job.work_done, 0)
    fewest, most = fewest * pace.per_left, most * pace.per_left
    # Chunks are counted a slice (seconds of work) at a time: while embedding, the time
    # since the count last grew is time spent on the next slice. While a file is read
    # (OCR of a scan: minutes) it is not, and the pages left say how long that takes.
    since = (now or time.time()) - job.work_updated_at if job.work_updated_at else 0.0
    if job.state not in ("embedding", "writing"):
        since = 0.0
    low = max(fewest / max(rates) - since, 0.0) + ocr
    held = max(most / min(rates) - since, 0.0) + ocr  # at the slowest rate seen
    # The middle stays within the rates seen: the sway widens the range, never moves the
    # figure said (blended with a slower kept rate it would go to the range's slow end).
    return TimeLeft(min(max(max(left - since, 0.0) + ocr, low), held), low=low,
                    high=max(most * sway(job, pace) / min(rates) - since, 0.0) + ocr)
