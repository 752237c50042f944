"""Team mode (``RAGCORE_AUTH=local``; see docs/teams.md): who may see and change what.

Kept in ``<root>/team.sqlite3``, or in Postgres when ``RAGCORE_DATABASE_URL`` is set:

    team_db.py     the team database: numbered migrations (``schema``), WAL, foreign keys
    pg_team_db.py  the same surface on Postgres: its own migrations, advisory locks so servers
                   migrate once and write one at a time
    schema.py      the migrations
    accounts.py    accounts, roles, the one-time set-up, sign-in (``LOCAL_ADMIN`` otherwise)
    passwords.py   argon2id password hashes, upgraded when their parameters are weaker
    identities.py  accounts signed in by an identity provider (OIDC issuer and subject)
    throttle.py    locking a name or a client out after repeated wrong passwords
    sessions.py    sign-in sessions (token hashes only), expiry, log out everywhere
    grants.py      index owners and shares by index uid, chat authors (storage, no policy)
    access.py      the policy: ``Access.can(user, action, resource)``, filtered listings,
                   the team-mode switch and the network-address check
    audit.py       the audit log of sign-ins, uploads, deletes, shares and refusals
    team.py        ``Team``: all of the above over one database, sharing and ownership changes
"""

from __future__ import annotations

from ...lazy_exports import lazy_exports

# The names the app uses, imported on first use: the policy switch alone stays light.
_EXPORTS: dict[str, str] = {
    "Resource": ".access",
    "auth_mode": ".access",
    "check_listen_address": ".access",
    "job_resource": ".access",
    "LOCAL_ADMIN": ".accounts",
    "User": ".accounts",
    "EVENTS": ".audit",
    "sign_in_identity": ".identities",
    "LIFETIME_SECONDS": ".sessions",
    "Team": ".team",
}

__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
