"""Fail fast once an embedding server has stopped answering (used by ``remote.RemoteEmbedder``).

An ingest embeds file after file through one embedder. When the server hangs, each file would
otherwise cost the whole time limit (and its retries) before failing, so a folder of 200 files
behind a dead server took hours to report what the first minutes made plain. A ``StallGuard``
counts requests that failed to connect or timed out in a row; at ``limit`` of them it trips, and
every later request fails at once, saying which server stopped answering and how many requests
were refused, until ``cooldown`` seconds have passed: then one request is let through as a probe
(a long-lived app process must recover once the server is back). Any answer from the server,
even an error status, resets the count: the server is alive.
"""

from __future__ import annotations

import threading
import time

from ..errors import EmbeddingError

DEFAULT_STALL_LIMIT = 3
DEFAULT_STALL_COOLDOWN = 60.0


class EmbeddingServerStalled(EmbeddingError):
    """The embedding server failed several requests in a row; this one was not even sent."""


class StallGuard:
    """Consecutive connection failures and timeouts of one server, and whether to stop trying."""

    def __init__(self, server: str, *, limit: int = DEFAULT_STALL_LIMIT,
                 cooldown: float = DEFAULT_STALL_COOLDOWN) -> None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            from ..errors import ConfigError

            raise ConfigError(f"stall_limit ({limit!r}) must be a positive integer")
        self.server = server
        self.limit = limit
        self.cooldown = cooldown
        self.failures = 0  # connection failures and timeouts in a row
        self.refused = 0  # requests refused without sending since the guard tripped
        self.last_failure = ""
        self._tripped_at: float | None = None
        self._lock = threading.Lock()

    @property
    def tripped(self) -> bool:
        return self._tripped_at is not None

    def check(self) -> None:
        """Raise ``EmbeddingServerStalled`` instead of sending, while the guard is tripped (a
        probe goes through once ``cooldown`` seconds have passed)."""
        with self._lock:
            if self._tripped_at is None:
                return
            if time.monotonic() - self._tripped_at >= self.cooldown:
                self._tripped_at = time.monotonic()  # one probe now, the next after a cooldown
                return
            self.refused += 1
            refused = self.refused
        raise EmbeddingServerStalled(
            f"The embedding server {self.server} stopped answering: {self.failures} requests "
            f"in a row failed (last: {self.last_failure}). ragcore sends it nothing more for "
            f"{self.cooldown:g} s ({refused} {'request' if refused == 1 else 'requests'} refused "
            "so far; their files are not "
            "indexed). Check that the server is running and reachable, then run the ingest "
            "again: files already indexed are skipped."
        )

    def failed(self, error: Exception) -> None:
        """A request failed to connect or timed out."""
        with self._lock:
            self.failures += 1
            self.last_failure = str(error)[:300]
            if self.failures >= self.limit:
                self._tripped_at = time.monotonic()

    def answered(self) -> None:
        """The server answered (whatever it said): it is alive again."""
        with self._lock:
            self.failures = 0
            self.refused = 0
            self._tripped_at = None
