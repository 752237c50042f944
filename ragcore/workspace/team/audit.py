"""The audit log: who signed in (or failed to), uploaded, deleted, shared, or was refused.

One row per event in the team database's ``audit`` table: when, the event, who (an account
name, or "local" for the command line and single-user mode), its target (an index uid, a user
name, a chat id), whether it succeeded, and a short detail. Names, not ids: a row still says who
it was after the account is deleted. Only admins read it (``read``); nothing here holds a
password or a session token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...errors import AccessDenied
from .team_db import TeamDB

EVENTS = ("login", "logout", "setup", "user", "upload", "delete", "share", "denied", "rename")
MAX_DETAIL_CHARS = 500


@dataclass(slots=True, frozen=True)
class AuditEntry:
    """One line of the audit log."""

    at: float
    event: str
    actor: str
    target: str
    ok: bool
    detail: str


class Audit:
    """Writes and (for admins) reads the audit log."""

    def __init__(self, db: TeamDB, clock: Callable[[], float]) -> None:
        self.db = db
        self.clock = clock

    def record(self, event: str, *, actor: str = "", target: str = "", ok: bool = True,
               detail: str = "") -> None:
        if event not in EVENTS:
            raise ValueError(f"audit event {event!r} is not one of {', '.join(EVENTS)}")
        self.db.execute(
            "INSERT INTO audit (at, event, actor, target, ok, detail) VALUES (?, ?, ?, ?, ?, ?)",
            (self.clock(), event, actor, target, int(ok), detail[:MAX_DETAIL_CHARS]))

    def read(self, viewer: object, *, limit: int = 200, event: str | None = None,
             actor: str | None = None) -> list[AuditEntry]:
        """The newest ``limit`` entries (of one event or actor when given), newest first;
        ``viewer`` must be an admin (a ``accounts.User``)."""
        if getattr(viewer, "role", None) != "admin":
            raise AccessDenied("only an admin may read the audit log: ask one of your admins")
        clauses, parameters = [], []
        if event is not None:
            clauses.append("event = ?")
            parameters.append(event)
        if actor is not None:
            clauses.append("actor = ?")
            parameters.append(actor)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.execute(
            f"SELECT at, event, actor, target, ok, detail FROM audit {where} "
            "ORDER BY at DESC, id DESC LIMIT ?", (*parameters, int(limit)))
        return [AuditEntry(r["at"], r["event"], r["actor"], r["target"], bool(r["ok"]),
                           r["detail"]) for r in rows]
