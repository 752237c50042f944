"""A turn's phase that waits on one long call, redrawn with its seconds while the page waits.

Some of a turn's phases are one call the page's thread waits on: the search (with the model's
first load, or a follow-up's rewrite), the check of the whole draft (the model judges a claim).
Drawn once, their label stood still on screen for up to 31 s (issue 65). ``PhaseClock`` redraws
the phase shown every ``every`` seconds from a thread of its own, attached to the page's script
run as ``st.spinner``'s timer is, so the label's seconds count while the page's thread is busy.
The reading and the draft move by themselves (``chat.progress``): they hide the clock.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

TICK_SECONDS = 1.0
log = logging.getLogger(__name__)


def with_seconds(label: str, seconds: float) -> str:
    """``label`` and the whole seconds spent, once there is one: "Checking… 3 s"."""
    return label if seconds < 1 else f"{label} {seconds:.0f} s"


class PhaseClock:
    """Redraws the phase shown (``show``) with its seconds until it is hidden or closed."""

    def __init__(self, *, every: float = TICK_SECONDS) -> None:
        self._every = every
        self._lock = threading.Lock()
        self._draw: Callable[[float], object] | None = None
        self._began = 0.0
        self._closed = threading.Event()
        self._page = threading.current_thread()
        self._thread: threading.Thread | None = None

    def show(self, draw: Callable[[float], object]) -> None:
        """Draw a phase now (``draw(0)``), then again with its seconds on every tick."""
        with self._lock:
            self._draw, self._began = draw, time.monotonic()
            draw(0.0)
        if self._thread is None:
            self._start()

    def hide(self) -> None:
        """The phase shown moves by itself, or is gone: no more redraws."""
        with self._lock:
            self._draw = None

    def close(self) -> None:
        self.hide()
        self._closed.set()

    def _start(self) -> None:
        from streamlit.runtime.scriptrunner import add_script_run_ctx

        self._thread = threading.Thread(target=self._tick, name="ragcore-phase-clock",
                                        daemon=True)
        add_script_run_ctx(self._thread)  # the page's run: its elements may be redrawn here
        self._thread.start()

    def _tick(self) -> None:
        # Ends with the page's run too: a run that ended early (an error, Stop) never closes it.
        while not self._closed.wait(self._every) and self._page.is_alive():
            with self._lock:
                if self._draw is not None:
                    try:
                        self._draw(time.monotonic() - self._began)
                    except Exception:  # noqa: BLE001 - the run ended under it: stop redrawing
                        log.debug("a phase's redraw failed; its clock stops", exc_info=True)
                        self._draw = None
