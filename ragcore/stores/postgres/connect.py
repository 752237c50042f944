"""Connecting to Postgres without ever writing a password down.

An index manifest records the database URL without its password (``clean_url``). The password
comes, in this order, from a URL given to this process earlier (``remember_password`` keeps it
in memory, keyed by user, host, port and database), from ``$RAGCORE_PG_PASSWORD``, or from
libpq's own sources (``$PGPASSWORD``, ``~/.pgpass``). ``connect`` opens an autocommit
connection with pgvector's types registered and says which server failed and what to do.
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from ...errors import ConfigError, StoreError

PASSWORD_ENV = "RAGCORE_PG_PASSWORD"
_passwords: dict[tuple[str, str, int, str], str] = {}


def _key(url: str) -> tuple[str, str, int, str]:
    parts = urlsplit(url)
    return (unquote(parts.username or ""), parts.hostname or "", parts.port or 5432,
            parts.path.lstrip("/"))


def clean_url(url: str) -> str:
    """``url`` with any password removed (what may be shown or saved)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{user}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def remember_password(url: str) -> str:
    """Keep the password of ``url`` (if any) for this process; returns the URL without it."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres") or not parts.hostname:
        raise ConfigError(f"{clean_url(url)!r} is not a Postgres URL: use "
                          "postgresql://USER@HOST:PORT/DATABASE")
    if parts.password is not None:
        _passwords[_key(url)] = unquote(parts.password)
    return clean_url(url)


def password_for(url: str) -> str | None:
    return _passwords.get(_key(url)) or os.environ.get(PASSWORD_ENV) or None


def connect(url: str) -> Any:
    """An autocommit connection to ``url`` with pgvector's types registered."""
    try:
        import psycopg
        from pgvector.psycopg import register_vector
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError("the Postgres store needs psycopg and pgvector: "
                          "pip install 'ragcore[postgres]'") from exc
    options: dict[str, Any] = {"autocommit": True, "connect_timeout": 10}
    password = password_for(url)
    if password is not None:
        options["password"] = password
    try:
        conn = psycopg.connect(clean_url(url), **options)
    except psycopg.OperationalError as exc:
        raise StoreError(
            f"cannot connect to Postgres at {clean_url(url)}: {str(exc).strip()}; check that "
            f"the server runs and, if it asks for a password, set ${PASSWORD_ENV}"
        ) from exc
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        register_vector(conn)
    except psycopg.Error as exc:
        conn.close()
        raise StoreError(f"Postgres at {clean_url(url)} has no pgvector extension ({exc}): "
                         "install pgvector on the server, or ask its admin to run "
                         "CREATE EXTENSION vector") from exc
    return conn
