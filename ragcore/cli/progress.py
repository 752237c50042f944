"""A progress bar on stderr for ingestion: a redrawn line on a terminal, else a line per file."""

from __future__ import annotations

import shutil
import sys
from typing import TextIO

from ..workspace.report import IngestProgress

_FINAL_STAGES = ("done", "failed", "unchanged")


class ProgressBar:
    """Callable progress sink for ``Workspace.ingest(progress=...)``."""

    def __init__(self, stream: TextIO | None = None, *, width: int = 28) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.interactive = bool(getattr(self.stream, "isatty", lambda: False)())
        self._drawn = False

    def __call__(self, event: IngestProgress) -> None:
        if self.interactive:
            self._redraw(event)
        elif event.stage in _FINAL_STAGES or event.stage == "saving":
            self.stream.write(self._line(event) + "\n")
            self.stream.flush()

    def _line(self, event: IngestProgress) -> str:
        filled = int(round(event.overall * self.width))
        bar = "#" * filled + "." * (self.width - filled)
        name = event.path.replace("\\", "/").rsplit("/", 1)[-1]
        counter = f"{event.file_number}/{event.file_count}"
        return f"[{bar}] {event.overall:4.0%} {counter} {event.stage:<9} {name}"

    def _redraw(self, event: IngestProgress) -> None:
        columns = shutil.get_terminal_size((100, 20)).columns
        line = self._line(event)[: max(20, columns - 1)]
        self.stream.write("\r" + line.ljust(columns - 1))
        self.stream.flush()
        self._drawn = True

    def close(self) -> None:
        """End the redrawn line so later output starts on a fresh one."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
