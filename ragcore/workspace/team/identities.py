"""Accounts of people who sign in through an identity provider (OIDC) instead of a password.

Streamlit's ``st.login()`` signs the person in with the organisation's provider and ``st.user``
gives the ID token's claims; ``sign_in_identity`` maps the issuer and subject (``iss``, ``sub``:
stable, unlike an e-mail address) to one account, the team database's ``users.identity``. The
first time, an account is made (when ``create`` allows; else the person is asked to get one
from an admin): a member, or the admin when the workspace has none yet, as the one-time set-up
would; its sign-in name comes from the e-mail's local part or the name claim, made unique. Such
an account has no password: its hash field holds a marker no password matches. Roles, shares,
disabling, the audit log and the policy are the same as for password accounts.
"""

from __future__ import annotations

import re

from ...errors import ConfigError, LoginRefused
from .accounts import NAME_RULE, RESERVED_NAMES, Accounts, User

NO_PASSWORD = "!identity-provider"  # not an argon2 hash: password sign-in never matches it


def identity_key(issuer: str, subject: str) -> str:
    if not issuer or not subject:
        raise ConfigError("the identity provider gave no issuer or subject ('iss', 'sub'): "
                          "check the provider's settings in .streamlit/secrets.toml")
    return f"{issuer}#{subject}"


def sign_in_identity(accounts: Accounts, issuer: str, subject: str, *, email: str = "",
                     display: str = "", create: bool = True) -> User:
    """The account of the person the provider signed in (made on first sign-in if ``create``)."""
    key = identity_key(issuer, subject)
    row = accounts.db.one("SELECT name FROM users WHERE identity = ?", (key,))
    if row is None:
        if not create:
            accounts.audit.record("login", actor=email or subject, ok=False, detail="no account")
            raise LoginRefused("you have no account in this workspace yet: ask an admin to "
                               "make one")
        user = _create(accounts, key, email, display)
    else:
        user = accounts.require(row["name"])
    if user.disabled:
        accounts.audit.record("login", actor=user.name, ok=False, detail="disabled account")
        raise LoginRefused("this account is disabled: ask an admin to enable it")
    accounts.audit.record("login", actor=user.name, detail="identity provider")
    return user


def _create(accounts: Accounts, key: str, email: str, display: str) -> User:
    with accounts.db.transaction():
        role = "admin" if not accounts.has_admin() else "member"
        name = _free_name(accounts, _name_from(email, display))
        accounts.db.execute(
            "INSERT INTO users (name, display, password_hash, role, created, identity) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (name, display.strip()[:120], NO_PASSWORD, role, accounts.clock(), key))
    accounts.audit.record("user", actor=name, target=name,
                          detail=f"created ({role}) at first sign-in through the provider")
    return accounts.require(name)


def _name_from(email: str, display: str) -> str:
    base = (email.split("@", 1)[0] if email else display).strip().lower()
    base = re.sub(r"[^a-z0-9._-]+", "-", base).strip("-._")[:56]
    return base if NAME_RULE.match(base) and base not in RESERVED_NAMES else "user"


def _free_name(accounts: Accounts, base: str) -> str:
    name, number = base, 1
    while accounts.find(name) is not None:
        number += 1
        name = f"{base}-{number}"
    return name
