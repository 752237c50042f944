"""Sign-in throttling: after ``MAX_FAILURES`` wrong passwords a key is locked for a while.

Keys are strings the caller chooses; ``accounts`` counts two per attempt, the account name
(``user:alice``) and the client (``client:<address or browser id>``), so guessing one account's
password from many places and many accounts' passwords from one place are both slowed. Failures
older than ``WINDOW_SECONDS`` are forgotten. An attempt is counted before its password is
checked, in the same transaction that checks the lock (``attempt``), so attempts arriving at
once cannot all pass the check; a right password gives the count back (``refund``) and clears
the account's key (``succeeded``). The clock is injected, so tests move time instead of sleeping.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from ...errors import LoginRefused
from .team_db import TeamDB

MAX_FAILURES = 10
LOCK_SECONDS = 15 * 60.0
WINDOW_SECONDS = 60 * 60.0


@dataclass(slots=True, frozen=True)
class Counted:
    """What one attempt did to one key: the count before it and the window it went into, and
    the lock it set (0 if none), so a right password can give it back."""

    key: str
    failures: int
    first_failed: float
    locked_until: float


@dataclass(slots=True, frozen=True)
class Attempt:
    """A sign-in attempt counted before its password is checked."""

    counted: tuple[Counted, ...]


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
        return max(0.0, self._wait(key, self.clock()))

    def attempt(self, keys: Sequence[str]) -> Attempt:
        """Count a sign-in attempt against each key before its password is checked, or raise
        ``LoginRefused`` when one is locked out.

        The check and the count are one transaction (the team database's writer lock: SQLite's
        file lock, a Postgres advisory lock), so however many attempts arrive at once, from
        threads, processes or servers, at most ``max_failures`` per key reach the password
        check before the lock; the attempt that reaches the limit sets it. An attempt whose
        password was right gives its count back (``refund``).
        """
        now = self.clock()
        with self.db.transaction():
            wait = max((self._wait(key, now) for key in keys), default=0.0)
            if wait <= 0:
                return Attempt(tuple(self._count(key, now) for key in keys))
        minutes = max(1, round(wait / 60))
        raise LoginRefused(
            f"too many wrong passwords: sign-in is locked for about {minutes} more "
            f"minute{'' if minutes == 1 else 's'}. Wait, or ask an admin to reset the password",
            retry_after=wait)

    def refund(self, attempt: Attempt, keys: Iterable[str]) -> None:
        """The password was right: ``attempt`` no longer counts against ``keys``."""
        wanted = set(keys)
        with self.db.transaction():
            for counted in attempt.counted:
                if counted.key in wanted:
                    self._uncount(counted)

    def _wait(self, key: str, now: float) -> float:
        row = self.db.one("SELECT locked_until FROM login_failures WHERE key = ?", (key,))
        return row["locked_until"] - now if row else 0.0

    def _count(self, key: str, now: float) -> Counted:
        row = self.db.one("SELECT failures, first_failed FROM login_failures WHERE key = ?",
                          (key,))
        failures, first = (row["failures"], row["first_failed"]) if row else (0, now)
        if now - first > WINDOW_SECONDS:
            failures, first = 0, now
        before = failures
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
        return Counted(key, before, first, locked)

    def _uncount(self, counted: Counted) -> None:
        if counted.locked_until:  # this attempt set the lock: undo it, unless a later one took
            self.db.execute(
                "UPDATE login_failures SET failures = ?, first_failed = ?, locked_until = 0 "
                "WHERE key = ? AND locked_until = ?",
                (counted.failures, counted.first_failed, counted.key, counted.locked_until))
        else:  # one failure fewer in the window it was counted in
            self.db.execute(
                "UPDATE login_failures SET failures = failures - 1 "
                "WHERE key = ? AND failures > 0 AND first_failed = ?",
                (counted.key, counted.first_failed))

    def succeeded(self, keys: Iterable[str]) -> None:
        with self.db.transaction():
            for key in keys:
                self.db.execute("DELETE FROM login_failures WHERE key = ?", (key,))

    def clear(self, key: str) -> None:
        """Lift ``key``'s lockout (an admin reset the account's password)."""
        self.succeeded([key])
