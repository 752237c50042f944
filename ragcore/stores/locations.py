"""Where an index keeps its vectors, written as one line: what ``ragcore ingest --store`` takes.

    (empty), numpy, simple        the index folder itself (``SimpleVectorStore``, the default)
    chroma:PATH                   an embedded Chroma database in folder PATH
    chroma+http://HOST:PORT       a Chroma server (``chroma run``)
    postgresql://USER@HOST:PORT/DB  a Postgres database with the pgvector extension

A location never keeps a password: ``clean_location`` drops one given in a Postgres URL and
remembers it for this process only (``ragcore.stores.postgres.connect``); other processes read it
from ``RAGCORE_PG_PASSWORD`` or ``PGPASSWORD``. ``open_location`` makes the store for one index:
each index gets its own Chroma collection or Postgres table, named from its name and its unique
id, so a new index never meets the rows of an old one of the same name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..errors import ConfigError

if TYPE_CHECKING:
    from .base import VectorStore

DEFAULT_NAMES = ("", "numpy", "simple")
KINDS = {
    "chroma": "Chroma database in a folder on this machine",
    "chroma+http": "Chroma server",
    "postgresql": "PostgreSQL with pgvector",
}
_USAGE = (
    "use chroma:PATH, chroma+http://HOST:PORT, postgresql://USER@HOST:PORT/DATABASE, "
    "or numpy for the index folder itself"
)


@dataclass(frozen=True, slots=True)
class StoreLocation:
    """A parsed location: its kind (a key of ``KINDS``) and its password-free target."""

    kind: str
    target: str  # the folder (chroma) or the URL without a password

    def __str__(self) -> str:
        return f"chroma:{self.target}" if self.kind == "chroma" else self.target


def parse_location(text: str | None) -> StoreLocation | None:
    """The location ``text`` names (None: the default store in the index folder)."""
    text = (text or "").strip()
    if text.lower() in DEFAULT_NAMES:
        return None
    scheme = text.split(":", 1)[0].lower()
    if scheme == "chroma":
        path = text.split(":", 1)[1]
        if not path:
            raise ConfigError(f"store {text!r} names no folder: {_USAGE}")
        return StoreLocation("chroma", str(Path(path).expanduser().resolve()))
    if scheme in ("chroma+http", "chroma+https"):
        parts = urlsplit(text)
        if not parts.hostname or parts.port is None:
            raise ConfigError(f"store {text!r} needs a host and a port: chroma+http://HOST:PORT")
        return StoreLocation("chroma+http", f"{scheme}://{parts.hostname}:{parts.port}")
    if scheme in ("postgresql", "postgres"):
        from .postgres.connect import remember_password

        return StoreLocation("postgresql", remember_password(text))
    raise ConfigError(f"unknown store {text!r}: {_USAGE}")


def collection_name(name: str, uid: str) -> str:
    """A Chroma collection or Postgres table name for index ``name`` with the unique ``uid``:
    ``ragcore_<name>_<uid>`` in [a-z0-9_], at most 8 + 30 + 1 + len(uid) characters (Postgres
    allows 63, and the store adds ``_hnsw`` to name its index)."""
    cleaned = re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_")[:30].strip("_")
    return f"ragcore_{cleaned}_{uid}" if cleaned else f"ragcore_{uid}"


def open_location(location: StoreLocation, name: str, uid: str, *,
                  metric: str = "cosine") -> VectorStore:
    """A new store at ``location`` for the index ``name`` (its own collection or table)."""
    table = collection_name(name, uid)
    if location.kind == "chroma":
        from .chroma import ChromaVectorStore

        return ChromaVectorStore(path=location.target, collection=table, metric=metric)
    if location.kind == "chroma+http":
        from .chroma import ChromaVectorStore

        return ChromaVectorStore(url=location.target, collection=table, metric=metric)
    from .postgres.pgvector import PGVectorStore

    return PGVectorStore(location.target, table=table, metric=metric)
