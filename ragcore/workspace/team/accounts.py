"""Team accounts: who may sign in, with what role, and the checks a sign-in goes through.

A ``User`` is a row of the team database's ``users`` table: a unique sign-in name, a shown name,
an argon2id password hash (``passwords``), a role (``admin`` or ``member``) and a disabled flag.
The first account becomes an admin: ``set_up`` (the one-time set-up screen) is refused once an
admin exists, and the first account ``create`` makes is an admin too. Admins create, disable,
delete accounts and reset passwords; the last enabled admin can be neither disabled, demoted nor
deleted, so a workspace always has someone who can. ``authenticate`` checks the password after
the lockout (``throttle``), upgrades a hash made with weaker parameters, and writes the audit log.

``LOCAL_ADMIN`` is the implicit administrator of single-user mode and of the command line on its
own workspace; it has no row and cannot sign in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from ...errors import AccessDenied, ConfigError, LoginRefused
from .audit import Audit
from .passwords import check_password, hash_password, needs_rehash, verify_password
from .team_db import TeamDB
from .throttle import Throttle

ROLES = ("admin", "member")
NAME_RULE = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
RESERVED_NAMES = ("local", "everyone")


@dataclass(slots=True, frozen=True)
class User:
    """A person who signs in (``id`` 0: the implicit local administrator)."""

    id: int
    name: str
    role: str = "member"
    display: str = ""
    disabled: bool = False
    created: float = 0.0

    @property
    def is_admin(self) -> bool:
        return self.role == "admin" and not self.disabled

    @property
    def shown(self) -> str:
        return self.display or self.name


LOCAL_ADMIN = User(0, "local", "admin", "Local administrator")


def check_name(name: str) -> str:
    """The sign-in name as stored (lower case), or a ConfigError saying what is allowed."""
    cleaned = str(name).strip().lower()
    if not NAME_RULE.match(cleaned):
        raise ConfigError(f"{name!r} cannot be a sign-in name: use 1-64 letters, digits, '.', "
                          "'_' or '-', starting with a letter or digit (e.g. 'ana.lopez')")
    if cleaned in RESERVED_NAMES:
        raise ConfigError(f"{cleaned!r} is reserved: choose another sign-in name")
    return cleaned


class Accounts:
    """The accounts of one workspace's team database."""

    def __init__(self, db: TeamDB, *, clock: Callable[[], float], hasher: Any, audit: Audit,
                 throttle: Throttle) -> None:
        self.db = db
        self.clock = clock
        self.hasher = hasher
        self.audit = audit
        self.throttle = throttle

    # -- reading -------------------------------------------------------------------------------

    def get(self, user_id: int) -> User | None:
        row = self.db.one("SELECT * FROM users WHERE id = ?", (user_id,))
        return _user(row) if row else None

    def find(self, name: str) -> User | None:
        row = self.db.one("SELECT * FROM users WHERE name = ?", (str(name).strip().lower(),))
        return _user(row) if row else None

    def require(self, name: str) -> User:
        user = self.find(name)
        if user is None:
            raise ConfigError(f"no account named {name!r}: see `ragcore users list`")
        return user

    def users(self) -> list[User]:
        return [_user(row) for row in self.db.execute("SELECT * FROM users ORDER BY name")]

    def has_admin(self) -> bool:
        return self.db.one("SELECT 1 FROM users WHERE role = 'admin' AND disabled = 0") is not None

    # -- creating ------------------------------------------------------------------------------

    def set_up(self, name: str, password: str, *, display: str = "") -> User:
        """The one-time set-up: the first admin. Refused once an enabled admin exists."""
        with self.db.transaction():
            if self.has_admin():
                raise AccessDenied("this workspace is already set up: sign in, or ask an admin "
                                   "for an account")
            user = self._insert(name, password, "admin", display)
        self.audit.record("setup", actor=user.name, target=user.name)
        return user

    def create(self, by: User, name: str, password: str, *, role: str = "member",
               display: str = "") -> User:
        """A new account made by an admin (the first account ever is an admin, whatever asked)."""
        _require_admin(by, "create accounts")
        if role not in ROLES:
            raise ConfigError(f"role {role!r} is not one of {', '.join(ROLES)}")
        with self.db.transaction():
            user = self._insert(name, password, role if self.has_admin() else "admin", display)
        self.audit.record("user", actor=by.name, target=user.name, detail=f"created ({user.role})")
        return user

    def _insert(self, name: str, password: str, role: str, display: str) -> User:
        name = check_name(name)
        if self.find(name) is not None:
            raise ConfigError(f"an account named {name!r} exists already: choose another name")
        password_hash = hash_password(self.hasher, password)
        self.db.execute(
            "INSERT INTO users (name, display, password_hash, role, created) VALUES (?, ?, ?, ?, ?)",
            (name, display.strip()[:120], password_hash, role, self.clock()))
        return self.require(name)

    # -- changing ------------------------------------------------------------------------------

    def set_disabled(self, by: User, user: User, disabled: bool = True) -> None:
        """Disable (or enable again) an account; disabling ends its sessions."""
        _require_admin(by, "disable accounts")
        with self.db.transaction():
            if disabled:
                self._keep_an_admin(user, "disable")
                self.db.execute("DELETE FROM sessions WHERE user_id = ?", (user.id,))
            self.db.execute("UPDATE users SET disabled = ? WHERE id = ?", (int(disabled), user.id))
        self.audit.record("user", actor=by.name, target=user.name,
                          detail="disabled" if disabled else "enabled")

    def set_role(self, by: User, user: User, role: str) -> None:
        _require_admin(by, "change roles")
        if role not in ROLES:
            raise ConfigError(f"role {role!r} is not one of {', '.join(ROLES)}")
        with self.db.transaction():
            if role != "admin":
                self._keep_an_admin(user, "demote")
            self.db.execute("UPDATE users SET role = ? WHERE id = ?", (role, user.id))
        self.audit.record("user", actor=by.name, target=user.name, detail=f"role {role}")

    def delete(self, by: User, user: User) -> None:
        """Delete an account: its sessions and shares go with it; indexes it owned and chats it
        wrote are left without an owner (admins see them and can give them a new one)."""
        _require_admin(by, "delete accounts")
        with self.db.transaction():
            self._keep_an_admin(user, "delete")
            self.db.execute("DELETE FROM users WHERE id = ?", (user.id,))
        self.throttle.clear(f"user:{user.name}")
        self.audit.record("user", actor=by.name, target=user.name, detail="deleted")

    def reset_password(self, by: User, user: User, password: str) -> None:
        """A new password set by an admin: ends the account's sessions and lifts its lockout."""
        _require_admin(by, "reset passwords")
        self._store_password(user, password)
        self.throttle.clear(f"user:{user.name}")
        self.audit.record("user", actor=by.name, target=user.name, detail="password reset")

    def change_password(self, user: User, old: str, new: str) -> None:
        """The person's own change: the old password must match; other sessions end."""
        row = self.db.one("SELECT password_hash FROM users WHERE id = ?", (user.id,))
        if row is None or not verify_password(self.hasher, row["password_hash"], old):
            raise LoginRefused("the current password is wrong: type it again")
        self._store_password(user, new)
        self.audit.record("user", actor=user.name, target=user.name, detail="password changed")

    def _store_password(self, user: User, password: str) -> None:
        check_password(password)
        password_hash = hash_password(self.hasher, password)
        with self.db.transaction():
            self.db.execute("UPDATE users SET password_hash = ? WHERE id = ?",
                            (password_hash, user.id))
            self.db.execute("DELETE FROM sessions WHERE user_id = ?", (user.id,))

    def _keep_an_admin(self, user: User, verb: str) -> None:
        row = self.db.one("SELECT COUNT(*) FROM users WHERE role = 'admin' AND disabled = 0 "
                          "AND id != ?", (user.id,))
        if user.is_admin and row[0] == 0:
            raise ConfigError(f"cannot {verb} {user.name!r}, the last admin: make another "
                              "account an admin first")

    # -- signing in ----------------------------------------------------------------------------

    def authenticate(self, name: str, password: str, *, client: str = "") -> User:
        """The account whose name and password these are, or ``LoginRefused`` (the same words
        for an unknown name and a wrong password, so names cannot be probed)."""
        typed = str(name).strip().lower()
        keys = [f"user:{typed}"] + ([f"client:{client}"] if client else [])
        attempt = self.throttle.attempt(keys)  # counted as wrong until the password is right
        row = self.db.one("SELECT * FROM users WHERE name = ?", (typed,))
        stored = row["password_hash"] if row else _UNKNOWN_USER_HASH.get(self.hasher)
        if not verify_password(self.hasher, stored, password) or row is None:
            self.audit.record("login", actor=typed, ok=False, detail=f"wrong password {client}")
            raise LoginRefused("wrong name or password: try again (after 10 wrong tries the "
                               "account is locked for a while)")
        user = _user(row)
        self.throttle.refund(attempt, keys)
        if user.disabled:
            self.audit.record("login", actor=typed, ok=False, detail="disabled account")
            raise LoginRefused("this account is disabled: ask an admin to enable it")
        self.throttle.succeeded(keys[:1])  # not the client's count: one good account resets none
        if needs_rehash(self.hasher, stored):
            self._store_rehash(user, password)
        self.audit.record("login", actor=user.name, detail=client)
        return user

    def _store_rehash(self, user: User, password: str) -> None:
        self.db.execute("UPDATE users SET password_hash = ? WHERE id = ?",
                        (self.hasher.hash(password), user.id))


class _UnknownUserHash:
    """A hash to verify against when the name is unknown, so both answers take as long."""

    def __init__(self) -> None:
        self._hashes: dict[int, str] = {}

    def get(self, hasher: Any) -> str:
        key = id(hasher)
        if key not in self._hashes:
            self._hashes[key] = hasher.hash("no account has this password")
        return self._hashes[key]


_UNKNOWN_USER_HASH = _UnknownUserHash()


def _require_admin(by: User, what: str) -> None:
    if not by.is_admin:
        raise AccessDenied(f"only an admin may {what}: ask one of your admins")


def _user(row: Any) -> User:
    return User(row["id"], row["name"], row["role"], row["display"], bool(row["disabled"]),
                row["created"])
