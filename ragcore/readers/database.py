"""DatabaseReader: the rows of an SQL query as Documents.

SQLite files (a path, ``sqlite:///path`` or an open ``sqlite3.Connection``) go through the
standard library and are opened read-only: reading never changes the database. Any other
SQLAlchemy URL (``postgresql://...``) or Engine works when SQLAlchemy is installed (imported only
then). Each row becomes one Document: its text columns as "column: value" lines (just the value
when there is one text column), chosen columns as metadata, and, with ``id_column``, a stable id
``<database>#<column>=<value>`` so re-reading a table updates documents instead of duplicating
them. Without ``id_column`` ids are random, as in LlamaIndex. Rows with no text are skipped.
"""

from __future__ import annotations

import datetime as dt
import decimal
import re
import sqlite3
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ragcore.errors import ConfigError, ReaderError
from ragcore.types import Document

_PASSWORD = re.compile(r"(://[^:/@]+):[^@]*@")


class DatabaseReader:
    """Runs a query against SQLite (stdlib) or any SQLAlchemy database and returns Documents."""

    def __init__(self, uri_or_connection: str | Path | sqlite3.Connection | Any) -> None:
        self._connection: sqlite3.Connection | None = None
        self._sqlite_path: Path | None = None
        self._engine: Any = None
        source = uri_or_connection
        if isinstance(source, sqlite3.Connection):
            self._connection, self.name = source, "sqlite"
        elif isinstance(source, Path) or (isinstance(source, str) and "://" not in source):
            self._sqlite_path = _existing_file(Path(source))
            self.name = str(self._sqlite_path)
        elif isinstance(source, str) and source.startswith("sqlite://"):
            self._sqlite_path = _existing_file(Path(source.removeprefix("sqlite:///")))
            self.name = str(self._sqlite_path)
        elif isinstance(source, str):
            self._engine, self.name = _sqlalchemy_engine(source), _PASSWORD.sub(r"\1:***@", source)
        elif hasattr(source, "connect") and hasattr(source, "dialect"):
            self._engine, self.name = source, _PASSWORD.sub(r"\1:***@", str(source.url))
        else:
            raise ConfigError(
                f"DatabaseReader needs a SQLite file path, a database URL or a connection, "
                f"not {type(source).__name__}"
            )

    def load_data(
        self,
        query: str,
        *,
        text_columns: Sequence[str] | None = None,
        metadata_columns: Sequence[str] | None = None,
        id_column: str | None = None,
        params: Sequence[Any] | Mapping[str, Any] | None = None,
    ) -> list[Document]:
        """One Document per row; ``params`` are bound to the query's placeholders (never pasted)."""
        columns, rows = self._run(query, params)
        metadata_columns = list(metadata_columns or [])
        wanted = [*(text_columns or []), *metadata_columns, *([id_column] if id_column else [])]
        _check_columns(columns, wanted)
        if text_columns is None:
            text_columns = [c for c in columns if c not in metadata_columns and c != id_column]
        documents, seen = [], set()
        for values in rows:
            row = dict(zip(columns, values))
            text = _row_text(row, text_columns)
            doc_id = str(uuid.uuid4())
            if id_column is not None:
                doc_id = f"{self.name}#{id_column}={row[id_column]}"
                if doc_id in seen:
                    raise ConfigError(
                        f"id_column {id_column!r} is not unique ({row[id_column]!r} repeats): "
                        "choose a column with one value per row, such as the primary key"
                    )
                seen.add(doc_id)
            if not text.strip():
                continue  # an all-empty row has nothing to retrieve
            metadata = {c: _metadata_value(row[c]) for c in metadata_columns}
            documents.append(Document(text=text, doc_id=doc_id, metadata=metadata))
        return documents

    def _run(self, query: str, params: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
        if self._engine is not None:
            return self._run_sqlalchemy(query, params)
        connection = self._connection or sqlite3.connect(
            f"file:{self._sqlite_path}?mode=ro", uri=True
        )
        try:
            cursor = connection.execute(query, params if params is not None else ())
            columns = [description[0] for description in cursor.description or ()]
            return columns, cursor.fetchall()
        except sqlite3.Error as exc:
            raise ReaderError(self.name, f"query failed ({exc})", _QUERY_HINT) from exc
        finally:
            if connection is not self._connection:
                connection.close()

    def _run_sqlalchemy(self, query: str, params: Any) -> tuple[list[str], list[tuple[Any, ...]]]:
        import sqlalchemy

        try:
            with self._engine.connect() as connection:
                result = connection.execute(sqlalchemy.text(query), params or {})
                return list(result.keys()), [tuple(row) for row in result.fetchall()]
        except sqlalchemy.exc.SQLAlchemyError as exc:
            raise ReaderError(self.name, f"query failed ({exc})", _QUERY_HINT) from exc


_QUERY_HINT = "check the SQL, the table and column names, and the connection"


def _existing_file(path: Path) -> Path:
    # sqlite3.connect would silently create an empty database for a mistyped path.
    if not path.is_file():
        raise ConfigError(f"SQLite database {str(path)!r} does not exist: check the path")
    return path.resolve()


def _sqlalchemy_engine(url: str) -> Any:
    try:
        import sqlalchemy
    except ImportError as exc:
        scheme = url.split("://", 1)[0]
        raise ConfigError(
            f"{scheme}:// databases need SQLAlchemy: pip install sqlalchemy (and the {scheme} "
            "driver), or use a SQLite file, which needs nothing extra"
        ) from exc
    return sqlalchemy.create_engine(url)


def _check_columns(columns: list[str], wanted: list[str]) -> None:
    unknown = [c for c in wanted if c not in columns]
    if unknown:
        raise ConfigError(f"unknown column{'' if len(unknown) == 1 else 's'} {unknown}: "
                          f"the query returns {columns}")


def _row_text(row: dict[str, Any], text_columns: Sequence[str]) -> str:
    if len(text_columns) == 1:
        return _text_value(row[text_columns[0]])
    return "\n".join(
        f"{c}: {_text_value(row[c])}" for c in text_columns if _text_value(row[c]).strip()
    )


def _text_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes | bytearray | memoryview):
        return f"<{len(value)} bytes>"
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def _metadata_value(value: Any) -> Any:
    """JSON-friendly metadata: numbers stay numbers (for filters), the rest becomes text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, decimal.Decimal):
        return float(value)
    return _text_value(value)
