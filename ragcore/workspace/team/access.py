"""The one place that decides who may do what: ``Access.can(user, action, resource)``.

Every page, the job runner and the command line ask here before they list, open or change an
index, an upload, a summary, a chat, an export or a job. What each action needs (``RULES``):

    index    list open query chat: read   ingest rename: write   delete share: owner
    upload   list open: read              ingest (re-index) delete: write
    summary  list open query chat: read   delete: write
    job      list open: read              cancel resume delete: write
    chat     list open rename delete: its author   query chat: its author, who can read the index
    export   list open delete: its author

An index's owner holds every level; admins hold every level on every index, and on chats and
exports that have no living author (their author was deleted, or they were made in single-user
mode), never on another person's chats. ``grants`` keeps the owners, shares and authors. A
refusal is ``AccessDenied`` saying what to do, and it never names an object the person may not
see; ``visible`` filters a listing with one query, so names and counts do not leak. Refusals go
to the audit log.
``job_resource`` and ``chat_resource`` make the ``Resource`` of a job or a saved chat.

Single-user mode (no ``RAGCORE_AUTH``) is ``Access.single_user()``: the local administrator may
do everything, exactly as before team mode existed. ``check_listen_address`` refuses to serve
that mode on a network address unless ``RAGCORE_ALLOW_OPEN=1`` says it is meant.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, TypeVar

from ...errors import AccessDenied, ConfigError
from .accounts import User
from .audit import Audit
from .grants import RANK, Grants

AUTH_ENV = "RAGCORE_AUTH"
OPEN_ENV = "RAGCORE_ALLOW_OPEN"
AUTH_MODES = ("none", "local", "oidc")

KINDS = ("index", "upload", "summary", "chat", "export", "job")
ACTIONS = ("list", "open", "query", "chat", "ingest", "rename", "delete", "cancel", "resume",
           "share")
READ, WRITE, OWNER, AUTHOR, AUTHOR_READ = "read", "write", "owner", "author", "author+read"
RULES: dict[str, dict[str, str]] = {
    "index": {"list": READ, "open": READ, "query": READ, "chat": READ, "ingest": WRITE,
              "rename": WRITE, "delete": OWNER, "share": OWNER},
    "upload": {"list": READ, "open": READ, "ingest": WRITE, "delete": WRITE},
    "summary": {"list": READ, "open": READ, "query": READ, "chat": READ, "delete": WRITE},
    "job": {"list": READ, "open": READ, "cancel": WRITE, "resume": WRITE, "delete": WRITE},
    "chat": {"list": AUTHOR, "open": AUTHOR, "rename": AUTHOR, "delete": AUTHOR,
             "query": AUTHOR_READ, "chat": AUTHOR_READ},
    "export": {"list": AUTHOR, "open": AUTHOR, "delete": AUTHOR},
}

T = TypeVar("T")


@dataclass(slots=True, frozen=True)
class Resource:
    """What an action is on: its kind, the uid of the index it belongs to, and for a chat or
    an export the chat's id. Build one with ``Resource.of(kind, index_uid, chat_id)``."""

    kind: str
    index_uid: str = ""
    chat_id: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"resource kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if self.kind in ("chat", "export") and not self.chat_id:
            raise ValueError(f"a {self.kind} resource needs the chat's id (chat_id=)")


def job_resource(job: object) -> Resource:
    """A background job (``jobs.Job``) as the policy sees it: it follows its index."""
    return Resource("job", str(getattr(job, "index_uid", "") or ""))


def chat_resource(chat_id: str, index_uid: str = "", *, export: bool = False) -> Resource:
    """A saved chat (or its export): its author decides; continuing it needs its index too."""
    return Resource("export" if export else "chat", index_uid, chat_id)


def needed(kind: str, action: str) -> str:
    """The level ``action`` on a ``kind`` needs; ValueError for an action that kind has not."""
    rules = RULES.get(kind)
    if rules is None or action not in rules:
        known = ", ".join(rules) if rules else "none"
        raise ValueError(f"{action!r} is not an action on a {kind} (its actions: {known})")
    return rules[action]


class Access:
    """Answers whether a person may do an action, from the grants of one team database."""

    def __init__(self, grants: Grants | None, audit: Audit | None = None) -> None:
        self.grants = grants
        self.audit = audit

    @classmethod
    def single_user(cls) -> Access:
        """No team: the local administrator may do everything."""
        return cls(None)

    @property
    def team_mode(self) -> bool:
        return self.grants is not None

    def can(self, user: User, action: str, resource: Resource) -> bool:
        need = needed(resource.kind, action)
        if self.grants is None:
            return True
        levels = self.grants.levels(user, resource.index_uid) if resource.index_uid else {}
        author = self.grants.author(resource.chat_id) if resource.chat_id else None
        return _allowed(user, need, resource, levels, lambda _chat: author)

    def require(self, user: User, action: str, resource: Resource) -> None:
        """Raise ``AccessDenied`` (and note it in the audit log) unless ``user`` may."""
        if self.can(user, action, resource):
            return
        if self.audit is not None:
            self.audit.record("denied", actor=user.name, ok=False, detail=action,
                              target=resource.chat_id or resource.index_uid)
        raise AccessDenied(refusal(action, resource))

    def visible(self, user: User, items: Iterable[T], resource_of: Callable[[T], Resource],
                action: str = "list") -> list[T]:
        """The ``items`` ``user`` may ``action`` (list), in their order: two queries at most."""
        items = list(items)
        if self.grants is None:
            return items
        levels = self.grants.levels(user)
        resources = [resource_of(item) for item in items]
        authors = self.grants.authors() if any(r.chat_id for r in resources) else {}
        kept = []
        for item, resource in zip(items, resources):
            if _allowed(user, needed(resource.kind, action), resource, levels, authors.get):
                kept.append(item)
        return kept

    def index_levels(self, user: User) -> Mapping[str, str]:
        """Every index uid ``user`` holds a level on (admins: see ``can``)."""
        return {} if self.grants is None else self.grants.levels(user)


def _allowed(user: User, need: str, resource: Resource, levels: Mapping[str, str],
             author_of: Callable[[str], int | None]) -> bool:
    if user.disabled:
        return False
    if need in (AUTHOR, AUTHOR_READ):
        author = author_of(resource.chat_id)
        mine = author == user.id if author is not None else user.is_admin
        if not mine or need == AUTHOR:
            return mine
        need = READ
    if user.is_admin:
        return True
    held = levels.get(resource.index_uid)
    return RANK[held] >= RANK[need]


def refusal(action: str, resource: Resource) -> str:
    """Why ``action`` was refused and what to do, naming nothing the person may not see."""
    if resource.kind in ("chat", "export"):
        return (f"this {resource.kind} is private to the person who wrote it: you cannot "
                f"{action} it. Start your own chat on an index shared with you")
    level = needed(resource.kind, action)
    if level == OWNER:
        return (f"only the index's owner or an admin may {action} it: ask them to do it")
    wanted = "for writing" if level == WRITE else ""
    return (f"you may not {action} this {resource.kind}: ask the index's owner to share it "
            f"with you {wanted}".rstrip())


# -- team mode and the address the app listens on --------------------------------------------

def auth_mode(environ: Mapping[str, str] | None = None, setting: str | None = None) -> str:
    """"none" (single user), "local" (accounts with passwords) or "oidc", from $RAGCORE_AUTH,
    else ``setting``, else "none"."""
    environ = os.environ if environ is None else environ
    mode = (environ.get(AUTH_ENV) or setting or "none").strip().lower()
    if mode in ("", "off", "single"):
        mode = "none"
    if mode not in AUTH_MODES:
        raise ConfigError(f"{AUTH_ENV}={mode!r} is not understood: use one of "
                          f"{', '.join(AUTH_MODES)} (or unset it for single-user mode)")
    return mode


def is_loopback(address: str | None) -> bool:
    """Whether ``address`` reaches this machine only ("localhost", 127.0.0.0/8, ::1). An empty
    address means every interface (Streamlit's default), so it is not."""
    host = (address or "").strip().strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to a network address


def check_listen_address(address: str | None, mode: str, *,
                         environ: Mapping[str, str] | None = None) -> None:
    """Refuse to serve single-user mode (no accounts: anyone who reaches the port may delete
    everything) on a network address, unless $RAGCORE_ALLOW_OPEN=1 says it is deliberate."""
    environ = os.environ if environ is None else environ
    if mode != "none" or is_loopback(address):
        return
    if environ.get(OPEN_ENV, "").strip().lower() in ("1", "true", "yes"):
        return
    shown = address or "every network interface"
    raise ConfigError(
        f"the app would listen on {shown} without accounts: anyone on the network could read "
        f"and delete every index. Set {AUTH_ENV}=local (or oidc) for team mode, or listen on "
        f"localhost, or set {OPEN_ENV}=1 if the network is yours alone")

