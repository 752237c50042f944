"""Sign-in throttling: after ``MAX_FAILURES`` wrong passwords a key is locked for a while.

Keys are strings the caller chooses; ``accounts`` counts two per attempt, the account name
(``user:alice``) and the client (``client:<address or browser id>``), so guessing one account's
password from many places and many accounts' passwords from one place are both slowed. Failures
older than ``WINDOW_SECONDS`` are forgotten; a success clears its keys. The clock is injected, so
tests move time instead of sleeping.
"""

from __future__ import annotations

from typing import Callable, Iterable

from ..errors import LoginRefused
from .team_db import TeamDB

MAX_FAILURES = 10
LOCK_SECONDS = 15 * 60.0
WINDOW_SECONDS = 60 * 60.0


class Throttle:
    """Counts failed sign-ins per key in the team database."""

    def __init__(self, db: TeamDB, clock: Callable[[], float], *,
                 max_failures: int = MAX_FAILURES, lock_seconds: float = LOCK_SECONDS) -> None:
        if max_failures < 1 or lock_seconds <= 0:
            raise ValueError(f"max_failures ({max_failures}) must be >= 1 and lock_seconds "
                             f"({lock_seconds}) > 0")
        self.db = db
        self.clock = clock
        self.max_failures = max_failures
        self.lock_seconds = lock_seconds

    def locked_for(self, key: str) -> float:
        """Seconds left of ``key``'s lockout (0 when it may try)."""
        row = self.db.one("SELECT locked_until FROM login_failures WHERE key = ?", (key,))
        return max(0.0, row["locked_until"] - self.clock()) if row else 0.0

    def check(self, keys: Iterable[str]) -> None:
        """Raise ``LoginRefused`` when any of ``keys`` is locked out."""
        wait = max((self.locked_for(key) for key in keys), default=0.0)
        if wait > 0:
            minutes = max(1, round(wait / 60))
            raise LoginRefused(
                f"too many wrong passwords: sign-in is locked for about {minutes} more "
                "minute(s). Wait, or ask an admin to reset the password", retry_after=wait)

    def failed(self, keys: Iterable[str]) -> None:
        """Count one failure for each key; lock a key that reached the limit."""
        now = self.clock()
        with self.db.transaction():
            for key in keys:
                self._count(key, now)

    def _count(self, key: str, now: float) -> None:
        row = self.db.one("SELECT failures, first_failed FROM login_failures WHERE key = ?",
                          (key,))
        failures, first = (row["failures"], row["first_failed"]) if row else (0, now)
        if now - first > WINDOW_SECONDS:
            failures, first = 0, now
        failures += 1
        locked = now + self.lock_seconds if failures >= self.max_failures else 0.0
        if locked:
            failures, first = 0, now  # the lockout starts a new count when it ends
        self.db.execute(
            "INSERT INTO login_failures (key, failures, first_failed, locked_until) "
            "VALUES (?, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET failures = excluded.failures, "
            "first_failed = excluded.first_failed, "
            "locked_until = CASE WHEN excluded.locked_until > login_failures.locked_until "
            "THEN excluded.locked_until ELSE login_failures.locked_until END",
            (key, failures, first, locked))

    def succeeded(self, keys: Iterable[str]) -> None:
        with self.db.transaction():
            for key in keys:
                self.db.execute("DELETE FROM login_failures WHERE key = ?", (key,))

    def clear(self, key: str) -> None:
        """Lift ``key``'s lockout (an admin reset the account's password)."""
        self.succeeded([key])
