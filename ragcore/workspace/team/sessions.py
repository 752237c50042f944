"""Sign-in sessions: a random token in the browser, only its SHA-256 in the team database.

``start`` returns a new token (32 random bytes, URL-safe) for the browser's cookie or session
state; the database keeps its hash, so a copied database file signs nobody in. A session ends
when it is ``LIFETIME_SECONDS`` old, when it was not used for ``IDLE_SECONDS``, on ``end``
(log out), on ``end_all`` (log out everywhere, also done by a password change or reset), and when
its account is disabled or deleted. The clock is injected: tests move time, never sleep.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Callable

from .accounts import Accounts, User
from .team_db import TeamDB

LIFETIME_SECONDS = 7 * 24 * 3600.0
IDLE_SECONDS = 12 * 3600.0
TOUCH_SECONDS = 60.0  # last_seen is written at most this often per session


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    """Sessions of the accounts in one team database."""

    def __init__(self, db: TeamDB, accounts: Accounts, clock: Callable[[], float], *,
                 lifetime: float = LIFETIME_SECONDS, idle: float = IDLE_SECONDS) -> None:
        if lifetime <= 0 or idle <= 0:
            raise ValueError(f"lifetime ({lifetime}) and idle ({idle}) must be positive seconds")
        self.db = db
        self.accounts = accounts
        self.clock = clock
        self.lifetime = lifetime
        self.idle = idle

    def start(self, user: User) -> str:
        """A new session for ``user`` (signed in just now); returns its token."""
        token = secrets.token_urlsafe(32)
        now = self.clock()
        self.db.execute(
            "INSERT INTO sessions (token_hash, user_id, created, last_seen, expires) "
            "VALUES (?, ?, ?, ?, ?)", (token_hash(token), user.id, now, now, now + self.lifetime))
        return token

    def user(self, token: str | None) -> User | None:
        """The signed-in account of ``token``, or None (unknown, expired, idle, disabled)."""
        if not token:
            return None
        digest = token_hash(token)
        row = self.db.one("SELECT user_id, last_seen, expires FROM sessions WHERE token_hash = ?",
                          (digest,))
        now = self.clock()
        if row is None:
            return None
        if now >= row["expires"] or now - row["last_seen"] >= self.idle:
            self.db.execute("DELETE FROM sessions WHERE token_hash = ?", (digest,))
            return None
        user = self.accounts.get(row["user_id"])
        if user is None or user.disabled:
            return None
        if now - row["last_seen"] >= TOUCH_SECONDS:
            self.db.execute("UPDATE sessions SET last_seen = ? WHERE token_hash = ?",
                            (now, digest))
        return user

    def end(self, token: str) -> None:
        """Log out this session."""
        row = self.db.one("SELECT user_id FROM sessions WHERE token_hash = ?", (token_hash(token),))
        self.db.execute("DELETE FROM sessions WHERE token_hash = ?", (token_hash(token),))
        if row is not None:
            self._audit_logout(row["user_id"], "this session")

    def end_all(self, user: User) -> int:
        """Log ``user`` out everywhere; returns how many sessions ended."""
        count = self.db.one("SELECT COUNT(*) FROM sessions WHERE user_id = ?", (user.id,))[0]
        self.db.execute("DELETE FROM sessions WHERE user_id = ?", (user.id,))
        self._audit_logout(user.id, f"everywhere ({count} sessions)")
        return int(count)

    def count(self, user: User) -> int:
        """How many live sessions ``user`` has (expired ones are swept first)."""
        self.sweep()
        return int(self.db.one("SELECT COUNT(*) FROM sessions WHERE user_id = ?", (user.id,))[0])

    def sweep(self) -> None:
        """Delete the sessions that expired or went idle."""
        now = self.clock()
        self.db.execute("DELETE FROM sessions WHERE expires <= ? OR last_seen <= ?",
                        (now, now - self.idle))

    def _audit_logout(self, user_id: int, detail: str) -> None:
        user = self.accounts.get(user_id)
        self.accounts.audit.record("logout", actor=user.name if user else str(user_id),
                                   detail=detail)
