"""Connecting to Postgres without ever writing a password down.

A Postgres URL is read by libpq itself (``psycopg.conninfo.conninfo_to_dict``), so every form
libpq takes works: ``postgresql://USER@HOST:PORT/DB``, no host (the default Unix socket), a socket
folder (``?host=/run/postgresql``, or ``postgresql://%2Frun%2Fpostgresql/DB``), several hosts,
``?port=``, ``?sslmode=`` and libpq's other parameters. ``clean_url`` rebuilds the URL from what
libpq read, less the password (given as ``USER:PW@`` or as ``?password=``): that is what an index
manifest records and what messages show.

The password comes, in this order, from the URL itself, from a URL given to this process earlier
(``remember_password`` keeps it in memory, keyed by user, host, port and database as libpq reads
them, so ``?host=/run/postgresql`` and ``%2Frun%2Fpostgresql`` share one key), from
``$RAGCORE_PG_PASSWORD``, or from libpq's own sources (``$PGPASSWORD``, ``~/.pgpass``).
``connect`` opens an autocommit connection with pgvector's types registered and says which server
failed and what to do.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import quote, unquote

from ...errors import ConfigError, StoreError

PASSWORD_ENV = "RAGCORE_PG_PASSWORD"
DEFAULT_PORT = "5432"
USAGE = ("postgresql://USER@HOST:PORT/DATABASE, or postgresql://USER@/DATABASE?host=/SOCKET/FOLDER "
         "for a Unix socket")
_SCHEMES = ("postgresql", "postgres")
_MISREAD = ("a Postgres URL's port must be a number, and a ':', '/' or '@' in its password or "
            f"database name percent-encoded (%3A, %2F, %40): use {USAGE}")  # names no password
_NAMED_HOST = re.compile(r"[A-Za-z0-9._-]+")  # a host name or IPv4 address, safe in the netloc
_IPV6_HOST = re.compile(r"[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*")  # written [in brackets] in the netloc
_passwords: dict[tuple[str, str, str, str], str] = {}


def _secrets(text: str) -> list[str]:
    """What in ``text`` may be a password, longest first, raw and decoded: the user part's text
    after ':' (libpq ends it at the first '@' before any '/'; the last '@' too, for a password
    with an unencoded '/'), every ``password=`` value, and a key=value string's password."""
    rest = text.partition("://")[2]
    found = [match.group(1) for match in (re.match(r"[^@/]*?:([^@/]*)@", rest),
                                          re.match(r"[^@/]*?:(.*)@", rest)) if match]
    found += [value for key, value in re.findall(r"([^?&=]*)=([^&]*)", rest)
              if unquote(key).strip().lower() == "password"]
    found += [quoted or bare for quoted, bare in
              re.findall(r"password\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S+))", text)]
    found += [unquote(secret) for secret in found]
    return sorted({secret for secret in found if secret}, key=len, reverse=True)


def _starred(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "***")
    return text


def _refusal(text: str, reason: str = "") -> ConfigError:
    """The error for ``text``, which is no Postgres URL libpq reads; it names no password."""
    # without '://' it may be a key=value string ("password=..."): not shown at all
    shown = f"{_starred(text, _secrets(text))!r} " if "://" in text else "that "
    reason = f" ({_starred(reason, _secrets(text))})" if reason else ""
    return ConfigError(f"{shown}is not a Postgres URL{reason}: use {USAGE}")


def _read(url: str) -> tuple[str, dict[str, str]]:
    """The scheme of ``url`` and libpq's reading of it (keywords and values, password included)."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep or scheme.lower() not in _SCHEMES:
        raise _refusal(text)
    if "@" in rest.split("?", 1)[0].partition("/")[2]:
        raise ConfigError(_MISREAD)  # libpq would read the password's end as the database
    try:
        import psycopg
        from psycopg.conninfo import conninfo_to_dict
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError("Postgres URLs are read by psycopg: pip install 'ragcore[postgres]'"
                          ) from exc
    try:
        params, reason = conninfo_to_dict(f"{scheme.lower()}://{rest}"), ""
    except psycopg.Error as exc:
        params, reason = {}, " ".join(str(exc).split())
    if reason:  # raised here, not chained: libpq's message may quote the password
        raise _refusal(text, reason)
    if any(not port.isdigit() for port in params.get("port", "").split(",") if port):
        raise ConfigError(_MISREAD)  # as libpq reads "USER:PASS/WORD@HOST"
    return scheme.lower(), {key: str(value) for key, value in params.items()}


def _key(params: dict[str, str]) -> tuple[str, str, str, str]:
    return (params.get("user", ""), params.get("host", ""),
            params.get("port", "") or DEFAULT_PORT, params.get("dbname", ""))


def _as_url(scheme: str, params: dict[str, str]) -> str:
    """``params`` less the password, as a URL that libpq reads back to the same values: one
    plain host in the netloc, sockets and host lists as ``?host=``."""
    rest = {key: value for key, value in params.items()
            if key not in ("user", "password", "dbname")}
    netloc = quote(params["user"], safe="") + "@" if "user" in params else ""
    host, port = rest.get("host", ""), rest.get("port", "")
    if _NAMED_HOST.fullmatch(host) or _IPV6_HOST.fullmatch(host):
        netloc += f"[{host}]" if ":" in host else host
        del rest["host"]
        if port.isdigit():
            netloc += f":{port}"
            del rest["port"]
    query = "&".join(f"{quote(key, safe='')}={quote(value, safe='/,:@')}"
                     for key, value in rest.items())
    path = "/" + quote(params.get("dbname", ""), safe="") if "dbname" in params or query else ""
    return f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")


def clean_url(url: str) -> str:
    """``url`` without its password (what may be shown or saved). Text libpq cannot read comes
    back with whatever may be a password starred out (``remember_password`` refuses it)."""
    try:
        return _as_url(*_read(url))
    except ConfigError:
        return _starred(url, _secrets(url))


def remember_password(url: str) -> str:
    """Keep the password of ``url`` (if any) for this process; returns the URL without it
    (ConfigError, naming the form to use, for what is not a Postgres URL)."""
    scheme, params = _read(url)
    if params.get("password"):
        _passwords[_key(params)] = params["password"]
    return _as_url(scheme, params)


def password_for(url: str) -> str | None:
    """The password to send for ``url``: its own, one remembered for it, or $RAGCORE_PG_PASSWORD
    (None: libpq looks in $PGPASSWORD and ~/.pgpass)."""
    params = _read(url)[1]
    return (params.get("password") or _passwords.get(_key(params))
            or os.environ.get(PASSWORD_ENV) or None)


def connect(url: str) -> Any:
    """An autocommit connection to ``url`` with pgvector's types registered."""
    try:
        import psycopg
        from pgvector.psycopg import register_vector
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise ConfigError("the Postgres store needs psycopg and pgvector: "
                          "pip install 'ragcore[postgres]'") from exc
    target = clean_url(url)
    options: dict[str, Any] = {"autocommit": True, "connect_timeout": 10}
    password = password_for(url)  # also refuses what is not a Postgres URL
    if password is not None:
        options["password"] = password
    try:
        conn = psycopg.connect(target, **options)
    except psycopg.OperationalError as exc:
        raise StoreError(
            f"cannot connect to Postgres at {target}: {str(exc).strip()}; check that "
            f"the server runs and, if it asks for a password, set ${PASSWORD_ENV}"
        ) from exc
    try:
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.errors.UniqueViolation:
            # another connection created it in the same instant ("IF NOT EXISTS" does not
            # serialize two creators): it exists now, which is all this asks
            pass
        register_vector(conn)
    except psycopg.Error as exc:
        conn.close()
        raise StoreError(f"Postgres at {target} has no pgvector extension ({exc}): "
                         "install pgvector on the server, or ask its admin to run "
                         "CREATE EXTENSION vector") from exc
    return conn
