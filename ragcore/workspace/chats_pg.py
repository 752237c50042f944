"""Saved chats as rows of the shared Postgres database, for more than one app server.

``PgChatStore`` is ``chats.ChatStore`` with its storage moved from ``chats/<id>.json`` to the
``chats`` table (``pg_team_db`` migration 4: id, index folder, index uid, updated, the chat's
JSON), so every server lists, opens, renames and deletes the same chats at once, without a
shared folder. Listing, search, rename and pin are the file store's own code over these rows.
``open_chats`` chooses: the file store unless ``$RAGCORE_DATABASE_URL`` names Postgres. The
chat's author stays in the team database's ``chat_authors`` (``grants``), in the same database.
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Iterable

from ..errors import WorkspaceError
from .chats import ChatStore, SavedChat
from .files import validate_name
from .team.pg_team_db import PgTeamDB, open_pg_team_db
from .team.team_db import database_url

logger = logging.getLogger(__name__)


class PgChatStore(ChatStore):
    """Chats as rows of the ``chats`` table; ids are validated as the file store's are."""

    def __init__(self, db: PgTeamDB) -> None:
        super().__init__(Path("chats"))  # no folder is used: kept for what reads ``folder``
        self.db = db

    def __repr__(self) -> str:
        return f"PgChatStore({self.db.path!r})"

    def save(self, chat: SavedChat) -> str:  # type: ignore[override]
        """Write the chat's row; returns where it went (the CLI prints it)."""
        chat_id = validate_name(chat.id, what="chat id")
        self.db.execute(
            "INSERT INTO chats (id, index_name, index_uid, updated, body) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(id) DO UPDATE SET index_name = excluded.index_name, "
            "index_uid = excluded.index_uid, updated = excluded.updated, body = excluded.body",
            (chat_id, chat.index, chat.index_uid, chat.updated,
             json.dumps(chat.to_dict(), ensure_ascii=False)))
        return f"chat {chat_id} in {self.db.path}"

    def exists(self, chat_id: str) -> bool:
        return self.db.one("SELECT 1 FROM chats WHERE id = ?",
                           (validate_name(chat_id, what="chat id"),)) is not None

    def load(self, chat_id: str) -> SavedChat:
        row = self.db.one("SELECT body FROM chats WHERE id = ?",
                          (validate_name(chat_id, what="chat id"),))
        if row is None:
            raise WorkspaceError(f"no saved chat {chat_id!r}: list chats to see their ids")
        return _chat(chat_id, row["body"])

    def delete(self, chat_id: str) -> None:
        rows = self.db.execute("DELETE FROM chats WHERE id = ? RETURNING id",
                               (validate_name(chat_id, what="chat id"),))
        if not rows:
            raise WorkspaceError(f"no saved chat {chat_id!r}: list chats to see their ids")

    def delete_all(self, *, index: str | None = None) -> int:
        """Delete every saved chat (of ``index`` only, when given); returns how many."""
        if index is None:
            return len(self.db.execute("DELETE FROM chats RETURNING id"))
        return len(self.db.execute("DELETE FROM chats WHERE index_name = ? RETURNING id",
                                   (index,)))

    def _chats(self) -> Iterable[SavedChat]:
        for row in self.db.execute("SELECT id, body FROM chats ORDER BY updated DESC, id DESC"):
            try:
                yield _chat(row["id"], row["body"])
            except WorkspaceError as exc:
                logger.warning("skipping chat %s: %s", row["id"], exc)


def _chat(chat_id: str, body: str) -> SavedChat:
    try:
        return SavedChat.from_dict(json.loads(body))
    except (KeyError, TypeError, ValueError) as exc:
        raise WorkspaceError(f"saved chat {chat_id!r} is damaged ({exc}); delete it") from exc


_stores: dict[str, PgChatStore] = {}
_stores_guard = threading.Lock()


def open_chats(root: Path) -> ChatStore:
    """The saved chats of the workspace at ``root``: ``<root>/chats/*.json``, or the ``chats``
    table of the shared database when ``$RAGCORE_DATABASE_URL`` names one (one connection per
    process and database, as the job journal has)."""
    url = database_url()
    if not url:
        return ChatStore(Path(root) / "chats")
    with _stores_guard:
        store = _stores.get(url)
        if store is None:
            store = _stores[url] = PgChatStore(open_pg_team_db(url))
        return store
