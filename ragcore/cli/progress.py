"""Progress on stderr: a redrawn bar on a terminal, plain lines otherwise.

The bar shows the same states as the app's job list (reading, splitting, embedding n/N,
saving); once it follows a job (``follow``), the job's chunks done of all its files and its
time left (``Job.time_left``: the one estimate the app shows too). Without a terminal
(a pipe, a log file), it writes a line when a file is finished or the index is saved, and at
most every ``LINE_EVERY`` seconds while a big file is embedded.

A chat turn's answer is checked against its passages before it is written; meanwhile
``follow_turn`` tells the same states the app's Chat page shows (passages found, reading,
draft, checking) on one line, redrawn the same way.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Any, TextIO

from ..workspace.jobs.journal import Job
from ..workspace.ingest.report import IngestProgress

_FINAL_STAGES = ("done", "failed", "unchanged", "saving")
LINE_EVERY = 10.0  # seconds between plain progress lines while one file is embedded


class ProgressBar:
    """Callable progress sink for ``Workspace.ingest(progress=...)`` (any thread)."""

    def __init__(self, stream: TextIO | None = None, *, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self._drawn = False
        self.job: Job | None = None
        self._last_line = 0.0
        self._lock = threading.Lock()

    def __call__(self, event: IngestProgress) -> None:
        with self._lock:
            if self.interactive:
                self._redraw(event)
            elif event.stage in _FINAL_STAGES or \
                    time.monotonic() - self._last_line >= LINE_EVERY:
                self._last_line = time.monotonic()
                self.stream.write(self._line(event) + "\n")
                self.stream.flush()

    def _line(self, event: IngestProgress) -> str:
        job = self.job
        fraction = job.fraction if job is not None else event.overall
        filled = int(round(fraction * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        name = event.path.replace("\\", "/").rsplit("/", 1)[-1]
        counter = f"{event.file_number}/{event.file_count}"
        stage = event.stage
        if stage == "embedding" and job is not None and job.work_total:
            stage = f"embedding {job.work_done}/{job.work_total}"
        elif stage == "embedding" and event.chunks_total:
            stage = f"embedding {event.chunks_done}/{event.chunks_total}"
        elif stage == "reading" and event.ocr_total:
            stage = f"reading scanned pages (OCR) {event.ocr_done} of {event.ocr_total}"
        line = f"[{bar}] {fraction:4.0%} {counter} {stage:<9} {name}"
        left = job.time_left() if job is not None else None
        if left is not None and fraction < 1:
            line += f" ({left.describe()})"
        return line

    def follow(self, job: Job) -> None:
        """Show ``job``'s progress over all its files and its time left (``Job.status``'s)."""
        self.job = job

    def _redraw(self, event: IngestProgress) -> None:
        columns = shutil.get_terminal_size((100, 20)).columns
        line = self._line(event)[: max(20, columns - 1)]
        self.stream.write("\r" + line.ljust(columns - 1))
        self.stream.flush()
        self._drawn = True

    def note(self, text: str) -> None:
        """A message on its own line (the bar, if drawn, is redrawn by the next event)."""
        with self._lock:
            self.stream.write(("\n" if self._drawn else "") + text + "\n")
            self.stream.flush()
            self._drawn = False

    def close(self) -> None:
        """End the redrawn line so later output starts on a fresh one."""
        with self._lock:
            if self._drawn:
                self.stream.write("\n")
                self.stream.flush()
                self._drawn = False


def tell_found(stream: TextIO | None = None) -> Any:
    """What a trace tells of the passages the moment a search returns them (``Trace.found``):
    a line on ``stream`` (stderr), before the sentences the model reads are chosen."""
    def found(nodes: list) -> None:
        out = stream if stream is not None else sys.stderr
        out.write(f"Passages found ({len(nodes)}); choosing the sentences the model reads.\n")
        out.flush()
    return found


def follow_turn(response: Any, llm: Any, stream: TextIO | None = None, *,
                tick: float = 0.5) -> None:
    """Read a chat reply that is checked before it is written (it has passages), telling on
    ``stream`` (stderr) what the app shows meanwhile: the passages found, how far the model has
    read them, that it writes a draft, then that the draft is checked (``chat.progress``).
    The reply replays from its start when it is then written."""
    from ..chat.progress import CHECKING_LABEL, Checking, Draft, Reading, reading_rate, turn_states

    line = _Line(stream if stream is not None else sys.stderr)
    line.note(f"Passages found ({len(response.source_nodes)}), being read by the model.")
    drafting = False
    for state in turn_states(response, lambda text: text, sources=response.source_nodes,
                             rate=lambda: reading_rate(llm), tick=tick):
        if isinstance(state, Reading):
            line.redraw(state.line())
        elif isinstance(state, Draft) and not drafting:
            drafting = True
            line.say("Writing the answer: a draft, checked before it is shown.")
        elif isinstance(state, Checking):
            line.say(CHECKING_LABEL)
    line.close()


class _Line:
    """One progress line: redrawn in place on a terminal, else a plain line when it says
    something new, and for a line redrawn often at most every ``LINE_EVERY`` seconds."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.interactive = bool(getattr(stream, "isatty", lambda: False)())
        self._drawn = 0  # characters of the line drawn in place (terminal)
        self._last = float("-inf")

    def note(self, text: str) -> None:
        """A line that stays, on a terminal too."""
        self.close()
        self.stream.write(text + "\n")
        self.stream.flush()

    def say(self, text: str) -> None:
        self._write(text, redrawn=False)

    def redraw(self, text: str) -> None:
        self._write(text, redrawn=True)

    def _write(self, text: str, *, redrawn: bool) -> None:
        if self.interactive:
            self.stream.write("\r" + text.ljust(self._drawn))
            self._drawn = len(text)
        elif not redrawn or time.monotonic() - self._last >= LINE_EVERY:
            self._last = time.monotonic() if redrawn else self._last
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Clear the line drawn in place, so the answer starts on an empty one."""
        if self.interactive and self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0
