"""Memory bounded whatever the characters: a big plain text is read and ingested a part at a time.

A text holding one character above U+00FF is four bytes per character in Python, so a 205 MB
text with an emoji per line cost 1.6 GB read whole. ``readers.text.text_parts`` reads a big
UTF-8 text in parts cut at paragraph breaks (one document each, ``#page=N``) and the workspace
ingests them one after another (``workspace.ingest_parts``).
"""

from __future__ import annotations

import tracemalloc

import pytest

from ragcore.readers import text as text_reader
from ragcore.readers.decoding import read_text

LINE = "The owl survey counted {n} birds at the river \U0001f989\r\n"


def wide_text(path, lines: int) -> str:
    """A CRLF text with an emoji ending each line and a paragraph break every 20 lines."""
    body = "".join(LINE.format(n=i) + ("\r\n" if i % 20 == 19 else "") for i in range(lines))
    path.write_bytes(b"\xef\xbb\xbf" + body.encode())
    return read_text(path)


def test_parts_are_bounded_cut_at_paragraphs_and_make_up_the_text(tmp_path):
    path = tmp_path / "wide.txt"
    whole = wide_text(path, 3000)
    parts = list(text_reader.text_parts(path, from_bytes=0, size=20_000))
    assert len(parts) > 5 and all(len(p.text) <= 20_000 for p in parts)
    assert all(p.text.endswith("\n\n") for p in parts[:-1])
    assert "".join(p.text for p in parts) == whole  # BOM dropped, CRLF made LF, nothing lost
    assert [p.id_suffix for p in parts[:2]] == ["#page=1", "#page=2"]


def test_a_later_part_full_of_replacement_characters_is_still_text(tmp_path):
    """The file's start says whether it is text, as when it is read whole: a book decoded with
    errors="replace" further on (one U+FFFD in twenty characters) is read, not refused."""
    path = tmp_path / "library.txt"
    clean = "".join(f"Line {i} of a clean book.\n\n" for i in range(2000))
    replaced = "".join(f"Caf\ufffd {i} na\ufffdve \ufffdt\ufffd.\n\n" for i in range(2000))
    path.write_text(clean + replaced, encoding="utf-8")
    parts = list(text_reader.text_parts(path, from_bytes=0, size=20_000))
    assert "".join(p.text for p in parts) == clean + replaced


def test_a_small_text_or_one_not_utf8_is_read_whole(tmp_path):
    small = tmp_path / "small.txt"
    small.write_text("short\n")
    assert text_reader.text_parts(small) is None
    latin = tmp_path / "latin.txt"
    latin.write_bytes("caf\u00e9 au lait\n".encode("cp1252"))
    assert text_reader.text_parts(latin, from_bytes=0) is None


def test_paginated_parts_are_cut_at_pages_and_lose_their_running_lines(tmp_path):
    tags = ["".join("abcdefghij"[int(d)] for d in str(n)) for n in range(1, 201)]  # no digits
    pages = [f"RFC 9999            Owls            June 2026\n\n   The owls of {tag} \U0001f989.\n"
             f"   They hunt near {tag[::-1]}.\n\nAnn           Standards Track           [Page {n}]\n"
             for n, tag in enumerate(tags, 1)]
    path = tmp_path / "rfc.txt"
    path.write_text("\f".join(pages))
    parts = list(text_reader.text_parts(path, from_bytes=0, size=3000))
    text = "".join(p.text for p in parts)
    assert len(parts) > 5 and "Standards Track" not in text and "RFC 9999" not in text
    assert all(f"The owls of {tag} " in text for tag in tags)


def test_reading_in_parts_holds_a_part_not_the_wide_text(tmp_path, monkeypatch):
    path = tmp_path / "wide.txt"
    wide_text(path, 40_000)  # 2.2 MB of UTF-8, 8.7 MB as a Python str
    monkeypatch.setattr(text_reader, "_READ_BYTES", 64 * 1024)
    tracemalloc.start()
    read_text(path)
    whole = tracemalloc.get_traced_memory()[1]
    tracemalloc.reset_peak()
    for _ in text_reader.text_parts(path, from_bytes=0, size=100_000):
        pass
    parts = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert parts < 0.2 * whole, (parts, whole)


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(text_reader, "PARTS_FROM_BYTES", 20_000)
    monkeypatch.setattr(text_reader, "PART_CHARS", 8_000)


def test_the_workspace_ingests_a_big_text_part_by_part(tmp_path, small_parts):
    from ragcore.embeddings import FakeEmbedder
    from ragcore.workspace import Workspace

    path = tmp_path / "wide.txt"
    wide_text(path, 2000)
    ws = Workspace(tmp_path / "ws", embedder=FakeEmbedder())
    report = ws.ingest("docs", [path])
    outcome = report.files[0]
    assert outcome.status == "indexed" and outcome.documents > 5 and outcome.chunks > 0
    [row] = ws.documents("docs")
    assert row["documents"] == outcome.documents and row["chunks"] == outcome.chunks
    assert not row["incomplete"]
    assert ws.ingest("docs", [path]).files[0].status == "unchanged"
    wide_text(path, 1000)  # the file shrank: its parts past the new end go
    shrunk = ws.ingest("docs", [path])
    assert shrunk.files[0].status == "indexed" and shrunk.removed_documents > 0
    [row] = ws.documents("docs")
    assert row["documents"] == shrunk.files[0].documents < outcome.documents
