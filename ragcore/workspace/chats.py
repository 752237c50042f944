"""Saved chats: a conversation with its sources and the settings used, on disk as JSON.

``SavedChat`` is plain data (what the app keeps and reopens); ``ChatStore`` files it under
``chats/<id>.json`` in the workspace; ``export_markdown``/``export_json`` give what a user
downloads. Chat memory for the engines is rebuilt from the saved messages by the caller.

``messages`` is the conversation as shown. Where a question was asked again (Regenerate, Edit)
the message there keeps the other versions of the conversation from that point on
(``ChatMessage.versions``; ``conversation.versions`` forks and switches them). Format version 2
adds them; a chat without any is still written as version 1, which every ragcore reads.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable

from ..errors import WorkspaceError
from ..types import ScoredNode
from .files import read_json, validate_name, write_json_atomic

CHAT_FORMAT = "ragcore-chat"
CHAT_VERSION = 2  # 2: messages may keep other versions of the conversation (``versions``)
_ROLES = ("user", "assistant", "system")
logger = logging.getLogger(__name__)


def now_iso() -> str:
    """The current UTC time as an ISO-8601 string (seconds precision)."""
    return datetime.now(timezone.utc).replace(microsecond=0).isoformat()


def new_chat_id() -> str:
    """A sortable, unique chat id such as '20261122-013341-9f2c1a'."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


@dataclass(slots=True)
class ChatSource:
    """A passage an answer was drawn from."""

    text: str
    file_name: str | None = None
    page: str | None = None
    score: float | None = None
    node_id: str | None = None
    doc_id: str | None = None

    @classmethod
    def from_scored(cls, scored: ScoredNode) -> ChatSource:
        node = scored.node
        return cls(
            text=node.text,
            file_name=scored.file_name,
            page=scored.page,
            score=None if scored.score is None else float(scored.score),
            node_id=node.node_id,
            doc_id=node.ref_doc_id,
        )


@dataclass(slots=True)
class ChatMessage:
    """One turn as shown to the user; assistant turns carry their sources (and trace)."""

    role: str
    content: str
    sources: list[ChatSource] = field(default_factory=list)
    created: str = field(default_factory=now_iso)
    trace: dict[str, Any] | None = None
    # The other versions of the conversation from here on, each this position's message and
    # every turn after it; ``version`` is this one's place among them all (0-based).
    versions: list[list[ChatMessage]] = field(default_factory=list)
    version: int = 0

    def __post_init__(self) -> None:
        if self.role not in _ROLES:
            raise WorkspaceError(f"chat message role {self.role!r} must be one of {_ROLES}")
        if not 0 <= self.version <= len(self.versions):
            raise WorkspaceError(f"chat message version {self.version} must be between 0 and "
                                 f"{len(self.versions)} (its number of other versions)")

    def to_dict(self) -> dict[str, Any]:
        data = {"role": self.role, "content": self.content,
                "sources": [asdict(s) for s in self.sources], "created": self.created,
                "trace": self.trace}
        if self.versions:  # written only where a conversation forked
            data["versions"] = [[m.to_dict() for m in tail] for tail in self.versions]
            data["version"] = self.version
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ChatMessage:
        sources = [ChatSource(**s) for s in data.get("sources", [])]
        content, trace = _without_old_score(data.get("content", ""), data.get("trace"))
        versions = [[cls.from_dict(m) for m in tail] for tail in data.get("versions", [])]
        return cls(
            role=data["role"],
            content=content,
            sources=sources,
            created=data.get("created") or now_iso(),
            trace=trace,
            versions=versions,
            version=int(data.get("version", 0)),
        )


def _without_old_score(content: str, trace: dict[str, Any] | None
                       ) -> tuple[str, dict[str, Any] | None]:
    """A reply saved before the extractive answerer's score left its text: the text without it,
    the score moved to the trace, where replies keep it now (the one place old chats are read)."""
    if " [score " not in content:
        return content, trace
    from ..llms.extractive.answer import SCORE_NOTE, split_old_score

    content, score = split_old_score(content)
    if score is None:
        return content, trace
    return content, {**(trace or {}), SCORE_NOTE: (trace or {}).get(SCORE_NOTE, score)}


@dataclass(slots=True)
class SavedChat:
    """A conversation over one index, with the modes, LLM and settings it was held with."""

    index: str
    chat_mode: str
    response_mode: str | None = None
    llm: str = ""
    title: str = ""
    id: str = field(default_factory=new_chat_id)
    created: str = field(default_factory=now_iso)
    updated: str = field(default_factory=now_iso)
    messages: list[ChatMessage] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    pinned: bool = False  # listed before the others
    index_uid: str = ""  # the index's record uid (``names.index_gone``); "" in older chats
    renamed: bool = False  # titled by its user: an edit of the first question keeps the title

    def add_message(
        self,
        role: str,
        content: str,
        *,
        sources: Iterable[ScoredNode | ChatSource] = (),
        trace: dict[str, Any] | None = None,
    ) -> ChatMessage:
        """Append a turn (sources as retrieved nodes or saved sources) and bump ``updated``."""
        message = new_message(role, content, sources=sources, trace=trace)
        self.messages.append(message)
        self.updated = message.created
        if not self.title and role == "user":
            self.title = title_from(content)
        return message

    def to_dict(self) -> dict[str, Any]:
        data = {f: getattr(self, f) for f in _CHAT_FIELDS}
        data["settings"] = dict(self.settings)
        data["messages"] = [m.to_dict() for m in self.messages]
        # Version 1 while nothing forked: a server not yet upgraded (one database, several
        # servers) still reads every chat that has no versions.
        forked = any("versions" in m for m in data["messages"])
        return {"format": CHAT_FORMAT, "version": CHAT_VERSION if forked else 1, **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SavedChat:
        if data.get("format") != CHAT_FORMAT:
            raise WorkspaceError("not a ragcore chat file (missing format tag 'ragcore-chat')")
        if int(data.get("version", 0)) > CHAT_VERSION:
            raise WorkspaceError(
                f"chat format version {data['version']} is newer than this ragcore "
                f"understands ({CHAT_VERSION}): upgrade ragcore"
            )
        fields = {k: data[k] for k in _CHAT_FIELDS if k in data}
        messages = [ChatMessage.from_dict(m) for m in data.get("messages", [])]
        return cls(**fields, messages=messages)


_CHAT_FIELDS = ("index", "chat_mode", "response_mode", "llm", "title", "id", "created", "updated",
                "settings", "pinned", "index_uid", "renamed")


def new_message(role: str, content: str, *, sources: Iterable[ScoredNode | ChatSource] = (),
                trace: dict[str, Any] | None = None) -> ChatMessage:
    """A message with its sources as saved sources (given as retrieved nodes or saved ones)."""
    saved = [s if isinstance(s, ChatSource) else ChatSource.from_scored(s) for s in sources]
    return ChatMessage(role=role, content=content, sources=saved, trace=trace)


@dataclass(slots=True, frozen=True)
class ChatSummary:
    """What a chat list shows without loading every message."""

    id: str
    title: str
    index: str
    chat_mode: str
    updated: str
    messages: int  # the conversation as shown
    created: str = ""
    pinned: bool = False
    other_versions: int = 0  # kept where it forked (Regenerate, Edit), switched to, not shown


MAX_TITLE_CHARS = 120


def title_from(text: str, limit: int = 60) -> str:
    """A first title: the question on one line, cut to ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


class ChatStore:
    """Chats as ``<folder>/<id>.json``; ids are validated so no path leaves the folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)

    def _path(self, chat_id: str) -> Path:
        return self.folder / f"{validate_name(chat_id, what='chat id')}.json"

    def save(self, chat: SavedChat) -> Path:
        path = self._path(chat.id)
        write_json_atomic(path, chat.to_dict())
        return path

    def exists(self, chat_id: str) -> bool:
        return self._path(chat_id).exists()

    def load(self, chat_id: str) -> SavedChat:
        path = self._path(chat_id)
        if not path.exists():
            raise WorkspaceError(f"no saved chat {chat_id!r}: list chats to see their ids")
        try:
            return SavedChat.from_dict(read_json(path, what="chat file"))
        except (KeyError, TypeError) as exc:
            raise WorkspaceError(f"chat file {path} is damaged ({exc}); delete it") from exc

    def delete(self, chat_id: str) -> None:
        path = self._path(chat_id)
        if not path.exists():
            raise WorkspaceError(f"no saved chat {chat_id!r}: list chats to see their ids")
        path.unlink()

    def rename(self, chat_id: str, title: str) -> SavedChat:
        """Give a saved chat a title of the user's choosing (spaces collapsed, not empty)."""
        title = " ".join(str(title).split())
        if not title:
            raise WorkspaceError("a chat title cannot be empty: type a few words")
        chat = self.load(chat_id)
        chat.title, chat.renamed = title[:MAX_TITLE_CHARS], True
        self.save(chat)
        return chat

    def set_pinned(self, chat_id: str, pinned: bool) -> SavedChat:
        """Pin a saved chat (listed first) or unpin it."""
        chat = self.load(chat_id)
        chat.pinned = bool(pinned)
        self.save(chat)
        return chat

    def delete_all(self, *, index: str | None = None) -> int:
        """Delete every saved chat (of ``index`` only, when given); returns how many."""
        gone = 0
        for chat in self._chats():
            if index is None or chat.index == index:
                self._path(chat.id).unlink(missing_ok=True)
                gone += 1
        return gone

    def list(self, *, search: str = "") -> list[ChatSummary]:
        """Saved chats, most recently updated first (damaged files are skipped and logged).

        ``search`` keeps the chats whose title, index or messages contain all of its words
        (case ignored), in any version of the conversation.
        """
        words = search.lower().split()
        summaries = [
            ChatSummary(chat.id, chat.title or "(untitled)", chat.index, chat.chat_mode,
                        chat.updated, len(chat.messages), chat.created, chat.pinned,
                        sum(len(m.versions) for m in chat.messages))
            for chat in self._chats() if _contains(chat, words)
        ]
        # updated is to the second: ties go to the chat made later (ids start with their time)
        return sorted(summaries, key=lambda s: (s.updated, s.id), reverse=True)

    def _chats(self) -> Iterable[SavedChat]:
        for path in self.folder.glob("*.json"):
            try:
                yield self.load(path.stem)
            except WorkspaceError as exc:
                logger.warning("skipping chat file %s: %s", path, exc)


def _contains(chat: SavedChat, words: list[str]) -> bool:
    if not words:
        return True
    text = " ".join([chat.title, chat.index, *(m.content for m in every_message(chat.messages))])
    return all(word in text.lower() for word in words)


def every_message(messages: Iterable[ChatMessage]) -> Iterable[ChatMessage]:
    """Each message of a conversation and of every version kept in it, depth first (a chat
    is found by the words of a reply it keeps, shown or not)."""
    for message in messages:
        yield message
        for tail in message.versions:
            yield from every_message(tail)


def export_json(chat: SavedChat) -> str:
    """The whole chat (messages, sources, settings) as indented JSON."""
    return json.dumps(chat.to_dict(), indent=2, ensure_ascii=False) + "\n"


def export_markdown(chat: SavedChat) -> str:
    """The chat as a readable Markdown document with sources under each answer."""
    lines = [f"# {chat.title or 'Chat'}", ""]
    lines += [
        f"- Index: `{chat.index}`",
        f"- Chat mode: `{chat.chat_mode}`",
    ]
    if chat.response_mode:
        lines.append(f"- Response mode: `{chat.response_mode}`")
    lines += [f"- LLM: {chat.llm or 'unknown'}", f"- Created: {chat.created}",
              f"- Updated: {chat.updated}", ""]
    for message in chat.messages:
        lines += _markdown_message(message)
    if chat.settings:
        lines += ["## Settings used", ""]
        lines += [f"- {key}: `{value}`" for key, value in sorted(chat.settings.items())]
        lines.append("")
    return "\n".join(lines)


def _markdown_message(message: ChatMessage) -> list[str]:
    speaker = {"user": "You", "assistant": "Assistant", "system": "System"}[message.role]
    lines = [f"### {speaker}", "", message.content.strip(), ""]
    if message.sources:
        lines += ["**Sources**", ""]
        for number, source in enumerate(message.sources, 1):
            lines.append(f"{number}. {_source_label(source)}")
            quoted = " ".join(source.text.split())
            lines.append(f"   > {quoted[:500]}{'…' if len(quoted) > 500 else ''}")
        lines.append("")
    return lines


def _source_label(source: ChatSource) -> str:
    label = source.file_name or source.doc_id or "unknown source"
    if source.page:
        label += f", page {source.page}"
    if source.score is not None:
        label += f" (score {source.score:.3f})"
    return label
