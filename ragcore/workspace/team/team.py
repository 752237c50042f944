"""``Team``: a workspace's team database opened with everything built on it, in one object.

``Team.open(root)`` opens ``<root>/team.sqlite3`` (``team_db``) and gives ``accounts``,
``sessions``, ``grants``, ``audit`` and ``access`` (the policy) over it, sharing one clock and one
password hasher. The changes that need both the policy and the audit log are here: sharing
(``share``/``unshare``: only the owner or an admin), noting a new index's owner
(``index_created``), forgetting a deleted index (``index_deleted``) and a chat's author
(``chat_saved``). ``index_uid`` gives an index made by an old ragcore (no uid in its record) one,
so it can be owned and shared like the rest.

Single-user mode opens no ``Team``: callers use ``Access.single_user()`` and ``LOCAL_ADMIN``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

from .access import Access, Resource
from .accounts import Accounts, User
from .audit import Audit
from .grants import Grants
from .passwords import default_hasher
from ..record import new_uid
from .sessions import Sessions
from .team_db import TeamDB, open_workspace_db
from .throttle import Throttle


class Team:
    """Accounts, sessions, grants, the audit log and the access policy of one workspace."""

    def __init__(self, db: TeamDB, *, clock: Callable[[], float] = time.time,
                 hasher: Any = None) -> None:
        self.db = db
        self.clock = clock
        self.audit = Audit(db, clock)
        self.throttle = Throttle(db, clock)
        self.accounts = Accounts(db, clock=clock, hasher=hasher or default_hasher(),
                                 audit=self.audit, throttle=self.throttle)
        self.sessions = Sessions(db, self.accounts, clock)
        self.grants = Grants(db)
        self.access = Access(self.grants, self.audit)

    @classmethod
    def open(cls, root: str | Path, *, clock: Callable[[], float] = time.time,
             hasher: Any = None) -> Team:
        """The team of the workspace at ``root`` (its database is made on first use; on
        Postgres when ``$RAGCORE_DATABASE_URL`` names one: ``team_db.open_workspace_db``)."""
        return cls(open_workspace_db(root), clock=clock, hasher=hasher)

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Team:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- indexes ---------------------------------------------------------------------------------

    def index_created(self, by: User, uid: str) -> None:
        """``by`` made index ``uid``: they own it, and nobody else sees it until they share it."""
        self.grants.claim(uid, by)

    def index_deleted(self, by: User, uid: str, shown: str = "") -> None:
        """Index ``uid`` was deleted: its owner and shares go (call after ``require`` delete)."""
        self.grants.forget_index(uid)
        self.audit.record("delete", actor=by.name, target=uid, detail=f"index {shown}".strip())

    def share(self, by: User, uid: str, user: User | None, level: str) -> None:
        """Share index ``uid`` with ``user`` (None: everyone) at ``level`` ("read"/"write")."""
        self.access.require(by, "share", Resource("index", uid))
        self.grants.share(uid, user, level)
        self.audit.record("share", actor=by.name, target=uid,
                          detail=f"{level} for {user.name if user else 'everyone'}")

    def unshare(self, by: User, uid: str, user: User | None) -> bool:
        """Take back a share; returns whether there was one."""
        self.access.require(by, "share", Resource("index", uid))
        removed = self.grants.unshare(uid, user)
        self.audit.record("share", actor=by.name, target=uid,
                          detail=f"removed for {user.name if user else 'everyone'}")
        return removed

    def give_index(self, by: User, uid: str, owner: User | None) -> None:
        """Make ``owner`` the owner of index ``uid`` (its owner or an admin may)."""
        self.access.require(by, "share", Resource("index", uid))
        self.grants.set_owner(uid, owner)
        self.audit.record("share", actor=by.name, target=uid,
                          detail=f"owner {owner.name if owner else 'none'}")

    # -- chats -----------------------------------------------------------------------------------

    def chat_saved(self, by: User, chat_id: str) -> None:
        """Note ``by`` as the author of chat ``chat_id`` (the first save only)."""
        self.grants.set_author(chat_id, by)

    def chat_deleted(self, chat_id: str) -> None:
        self.grants.forget_chat(chat_id)


def index_uid(workspace: Any, name: str) -> str:
    """The uid of index ``name``; one made by an old ragcore gets one now (under its lock)."""
    with workspace.writing(name):
        record = workspace.record(name)
        if not record.uid:
            record = replace(record, uid=new_uid())
            workspace.save_record(name, record)
    return record.uid
