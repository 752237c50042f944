"""DatabaseReader on a real SQLite file written by the test."""

from __future__ import annotations

import sqlite3
import sys
from pathlib import Path

import pytest

from ragcore.errors import ConfigError, ReaderError
from ragcore.readers import DatabaseReader


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "library.db"
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE books (id INTEGER PRIMARY KEY, title TEXT, summary TEXT, year INTEGER, "
            "genre TEXT, cover BLOB)"
        )
        connection.executemany(
            "INSERT INTO books VALUES (?, ?, ?, ?, ?, ?)",
            [
                (1, "Dune", "A desert planet and its spice.", 1965, "sci-fi", b"\x89PNG"),
                (2, "Emma", "A matchmaker in Highbury.", 1815, "novel", None),
                (3, None, None, None, "empty", None),
            ],
        )
    connection.close()
    return path


def test_every_column_as_text_by_default(db_path: Path):
    docs = DatabaseReader(db_path).load_data("SELECT id, title, year FROM books ORDER BY id")
    assert [d.text for d in docs] == [
        "id: 1\ntitle: Dune\nyear: 1965",
        "id: 2\ntitle: Emma\nyear: 1815",
        "id: 3",
    ]


def test_text_metadata_and_stable_ids(db_path: Path):
    reader = DatabaseReader(f"sqlite:///{db_path}")
    docs = reader.load_data(
        "SELECT * FROM books WHERE summary IS NOT NULL ORDER BY id",
        text_columns=["title", "summary"],
        metadata_columns=["year", "genre"],
        id_column="id",
    )
    assert docs[0].text == "title: Dune\nsummary: A desert planet and its spice."
    assert docs[0].metadata == {"year": 1965, "genre": "sci-fi"}
    assert docs[0].doc_id == f"{db_path.resolve()}#id=1"
    again = reader.load_data(
        "SELECT * FROM books WHERE summary IS NOT NULL ORDER BY id",
        text_columns=["title", "summary"], metadata_columns=["year", "genre"], id_column="id",
    )
    assert [d.doc_id for d in again] == [d.doc_id for d in docs]


def test_one_text_column_is_the_plain_value_and_empty_rows_are_skipped(db_path: Path):
    docs = DatabaseReader(db_path).load_data(
        "SELECT id, summary FROM books ORDER BY id", text_columns=["summary"], id_column="id"
    )
    assert [d.text for d in docs] == ["A desert planet and its spice.", "A matchmaker in Highbury."]


def test_blobs_are_described_not_dumped(db_path: Path):
    (doc,) = DatabaseReader(db_path).load_data("SELECT title, cover FROM books WHERE id = 1")
    assert doc.text == "title: Dune\ncover: <4 bytes>"


def test_parameters_are_bound(db_path: Path):
    docs = DatabaseReader(db_path).load_data(
        "SELECT title FROM books WHERE year < ?", params=(1900,)
    )
    assert [d.text for d in docs] == ["Emma"]


def test_open_connection_is_used_and_left_open(db_path: Path):
    connection = sqlite3.connect(db_path)
    docs = DatabaseReader(connection).load_data("SELECT title FROM books WHERE id = 2")
    assert docs[0].text == "Emma"
    assert connection.execute("SELECT count(*) FROM books").fetchone() == (3,)
    connection.close()


def test_reading_never_writes(db_path: Path):
    with pytest.raises(ReaderError, match="query failed"):
        DatabaseReader(db_path).load_data("DELETE FROM books")
    assert len(DatabaseReader(db_path).load_data("SELECT * FROM books")) == 3


def test_bad_sql_is_a_reader_error_with_a_hint(db_path: Path):
    with pytest.raises(ReaderError) as caught:
        DatabaseReader(db_path).load_data("SELECT nope FROM books")
    assert "no such column" in caught.value.problem and caught.value.hint


def test_unknown_columns_list_the_available_ones(db_path: Path):
    with pytest.raises(ConfigError, match=r"\['summry'\].*'summary'"):
        DatabaseReader(db_path).load_data("SELECT * FROM books", text_columns=["summry"])


def test_duplicate_ids_are_refused(db_path: Path):
    with pytest.raises(ConfigError, match="not unique"):
        DatabaseReader(db_path).load_data("SELECT * FROM books, books AS b2", id_column="genre")


def test_missing_database_file_is_not_created(tmp_path: Path):
    with pytest.raises(ConfigError, match="does not exist"):
        DatabaseReader(tmp_path / "typo.db")
    assert not (tmp_path / "typo.db").exists()


def test_other_urls_need_sqlalchemy(monkeypatch):
    monkeypatch.setitem(sys.modules, "sqlalchemy", None)  # as if not installed
    with pytest.raises(ConfigError, match="pip install sqlalchemy"):
        DatabaseReader("postgresql://user:secret@db.example/library")


def test_unsupported_source_type():
    with pytest.raises(ConfigError, match="SQLite file path"):
        DatabaseReader(42)
