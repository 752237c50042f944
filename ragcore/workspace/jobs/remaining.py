"""How long a running job has left, and how sure that is: the time the app, the CLI's bar and
``ragcore jobs`` show.

``estimate.py`` counts a job's chunks (done, in all, and the range the total may still fall in
while some files are not split yet); this module turns chunks into seconds. The middle figure
divides the chunks left by a rate that blends this computer's measured rate (``rates.py``) with
the job's own, the job's weighing more as it runs (all of it after ``TRUST_SECONDS``, then its
rate over the last ``TRUST_SECONDS``). The range around it takes the count's range and the
fastest and slowest of the rates seen: on a computer that other work slows down, the measured
rate and the job's own differ, and the range says by how much (an upload told "about 7 s" took
16.9 s under load) until the job's own has been measured for ``PRIOR_SECONDS``. The range is
said when it is wide, the middle figure (within it) when it is not.
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


def time_left(done: int, total: int, *, prior_rate: float, observed_done: int,
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


def rates_seen(job: Any) -> list[float]:
    """The chunks per second a job's time may go at: its own over the whole run and over the
    last ``TRUST_SECONDS`` (each once measured for ``MIN_OBSERVED``), and this computer's kept
    rate for the first ``PRIOR_SECONDS``; with none of its own yet, also that rate slowed
    ``BUSY`` times (the computer may be busier than when it was measured)."""
    rates = []
    for since, base in ((job.work_started_at, job.work_base), (job.rate_since, job.rate_base)):
        seconds = job.work_updated_at - since if since else 0.0
        if seconds >= MIN_OBSERVED and job.work_done > base:
            rates.append((job.work_done - base) / seconds)
    whole = job.work_updated_at - job.work_started_at if job.work_started_at else 0.0
    if job.rate > 0 and whole < PRIOR_SECONDS:
        rates += [job.rate] if rates else [job.rate, job.rate / BUSY]
    return rates


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
    """A ``Job``'s time left: its chunks left at this computer's rate blended with its own
    (``time_left``), the range from its count's range at the fastest and slowest of its rates
    (``rates_seen``), plus its scanned pages left to OCR. With no embedding rate at all yet,
    OCR's time alone, marked partial. None before the work is counted or once it is embedded."""
    if not job.active or job.state in ("queued", "summarising"):
        return None
    ocr = job.ocr_left * job.ocr_page_seconds
    observed = job.work_updated_at - job.rate_since if job.rate_since else 0.0
    left = time_left(job.work_done, job.work_total, prior_rate=job.rate,
                     observed_done=job.work_done - job.rate_base,
                     observed_seconds=observed) if job.work_total else None
    if left is None:  # minutes of OCR are worth saying before the embedder is timed
        return TimeLeft(ocr, partial=True) if ocr > 0 else None
    if job.work_done >= job.work_total and ocr <= 0:
        return None  # every passage embedded: the index is written, in seconds no rate tells
    rates = rates_seen(job)
    if not rates:
        return TimeLeft(left + ocr)
    fewest = max(min(job.work_low or job.work_total, job.work_total) - job.work_done, 0)
    most = max(max(job.work_high, job.work_total) - job.work_done, 0)
    # Chunks are counted a slice (seconds of work) at a time: while embedding, the time
    # since the count last grew is time spent on the next slice. While a file is read
    # (OCR of a scan: minutes) it is not, and the pages left say how long that takes.
    since = (now or time.time()) - job.work_updated_at if job.work_updated_at else 0.0
    if job.state not in ("embedding", "writing"):
        since = 0.0
    return TimeLeft(max(left - since, 0.0) + ocr,
                    low=max(fewest / max(rates) - since, 0.0) + ocr,
                    high=max(most / min(rates) - since, 0.0) + ocr)
