"""Who owns each index and whom it is shared with; who wrote each chat. Plain storage, no policy.

Rows refer to an index by its record uid (``names``): a rename changes nothing here, and an index
made later in the folder of a deleted one has a new uid, so none of the old shares apply to it.
An index has at most one owner (``owner_id``; none for indexes made before team mode, by the
command line, or whose owner was deleted: only admins see those). A grant gives one account, or
everyone (``user_id`` NULL), ``read`` or ``write``; one grant per index and grantee. A chat's
author is kept here rather than in its JSON file, so nobody can make a chat theirs by editing a
file, and the shared state stays in one database. What these rows allow is decided in ``access``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .accounts import User
from .team_db import TeamDB

LEVELS = ("read", "write")
RANK = {None: 0, "read": 1, "write": 2, "owner": 3}


@dataclass(slots=True, frozen=True)
class Share:
    """One grant on an index: ``user_id`` None means everyone."""

    user_id: int | None
    level: str


def _owner_id(user: User | None) -> int | None:
    return user.id if user is not None and user.id > 0 else None


class Grants:
    """Index owners, shares and chat authors in the team database."""

    def __init__(self, db: TeamDB) -> None:
        self.db = db

    # -- owners ----------------------------------------------------------------------------------

    def claim(self, uid: str, owner: User | None) -> None:
        """Note ``owner`` as the owner of the new index ``uid`` (kept if it has one already)."""
        _require_uid(uid)
        self.db.execute("INSERT INTO indexes (uid, owner_id) VALUES (?, ?) "
                        "ON CONFLICT(uid) DO NOTHING", (uid, _owner_id(owner)))

    def set_owner(self, uid: str, owner: User | None) -> None:
        _require_uid(uid)
        self.db.execute("INSERT INTO indexes (uid, owner_id) VALUES (?, ?) ON CONFLICT(uid) "
                        "DO UPDATE SET owner_id = excluded.owner_id", (uid, _owner_id(owner)))

    def owner(self, uid: str) -> int | None:
        row = self.db.one("SELECT owner_id FROM indexes WHERE uid = ?", (uid,))
        return row["owner_id"] if row else None

    def forget_index(self, uid: str) -> None:
        """The index was deleted: its owner and every share go (a later index starts private)."""
        self.db.execute("DELETE FROM indexes WHERE uid = ?", (uid,))

    # -- shares ----------------------------------------------------------------------------------

    def share(self, uid: str, user: User | None, level: str) -> None:
        """Give ``user`` (None: everyone) ``level`` on index ``uid``, replacing their grant."""
        _require_uid(uid)
        if level not in LEVELS:
            raise ValueError(f"share level {level!r} is not one of {', '.join(LEVELS)}")
        grantee = _owner_id(user)
        if user is not None and grantee is None:
            raise ValueError("the local administrator sees every index already: share with an "
                             "account")
        with self.db.transaction():
            self.db.execute("INSERT INTO indexes (uid, owner_id) VALUES (?, NULL) "
                            "ON CONFLICT(uid) DO NOTHING", (uid,))
            self.db.execute("DELETE FROM grants WHERE index_uid = ? AND COALESCE(user_id, 0) = ?",
                            (uid, grantee or 0))
            self.db.execute("INSERT INTO grants (index_uid, user_id, level) VALUES (?, ?, ?)",
                            (uid, grantee, level))

    def unshare(self, uid: str, user: User | None) -> bool:
        """Take back ``user``'s (None: everyone's) grant; returns whether there was one."""
        grantee = _owner_id(user) or 0  # 0: everyone (SQL's NULL = NULL is never true)
        before = self.db.one("SELECT COUNT(*) FROM grants WHERE index_uid = ? AND "
                             "COALESCE(user_id, 0) = ?", (uid, grantee))[0]
        self.db.execute("DELETE FROM grants WHERE index_uid = ? AND COALESCE(user_id, 0) = ?",
                        (uid, grantee))
        return bool(before)

    def shares(self, uid: str) -> list[Share]:
        rows = self.db.execute("SELECT user_id, level FROM grants WHERE index_uid = ? "
                               "ORDER BY user_id IS NOT NULL, user_id", (uid,))
        return [Share(row["user_id"], row["level"]) for row in rows]

    def level(self, uid: str, user: User) -> str | None:
        """What ``user`` holds on index ``uid``: "owner", "write", "read" or None."""
        if not uid:
            return None
        return self.levels(user, uid).get(uid)

    def levels(self, user: User, uid: str | None = None) -> dict[str, str]:
        """Every index uid ``user`` owns or was granted (of ``uid`` only, when given), with the
        highest level held: one query for a whole listing."""
        only = "AND i.uid = ?" if uid is not None else ""
        extra = (uid,) if uid is not None else ()
        rows = self.db.execute(
            "SELECT i.uid AS uid, 'owner' AS level FROM indexes i WHERE i.owner_id = ? "
            f"{only} UNION ALL SELECT g.index_uid, g.level FROM grants g JOIN indexes i "
            f"ON i.uid = g.index_uid WHERE (g.user_id = ? OR g.user_id IS NULL) {only}",
            (user.id, *extra, user.id, *extra))
        best: dict[str, str] = {}
        for row in rows:
            if RANK[row["level"]] > RANK[best.get(row["uid"])]:
                best[row["uid"]] = row["level"]
        return best

    # -- chat authors --------------------------------------------------------------------------

    def set_author(self, chat_id: str, user: User | None) -> None:
        """Note who wrote chat ``chat_id`` (when it is first saved)."""
        self.db.execute("INSERT INTO chat_authors (chat_id, user_id) VALUES (?, ?) "
                        "ON CONFLICT(chat_id) DO NOTHING", (chat_id, _owner_id(user)))

    def author(self, chat_id: str) -> int | None:
        row = self.db.one("SELECT user_id FROM chat_authors WHERE chat_id = ?", (chat_id,))
        return row["user_id"] if row else None

    def authors(self) -> dict[str, int | None]:
        """Every chat with a noted author: chat id -> the author's id (None: deleted since)."""
        return {row["chat_id"]: row["user_id"]
                for row in self.db.execute("SELECT chat_id, user_id FROM chat_authors")}

    def chats_by(self, user: User) -> set[str]:
        rows = self.db.execute("SELECT chat_id FROM chat_authors WHERE user_id = ?", (user.id,))
        return {row["chat_id"] for row in rows}

    def forget_chat(self, chat_id: str) -> None:
        self.db.execute("DELETE FROM chat_authors WHERE chat_id = ?", (chat_id,))


def _require_uid(uid: str) -> None:
    if not uid:
        raise ValueError("an index without a uid (made by an old ragcore) cannot be owned or "
                         "shared: give it one first (team.index_uid does)")

