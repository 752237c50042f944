"""Broken input: each bad file raises a ReaderError that names it, says what is wrong and what
to do, and in a folder it becomes one failure entry while every other file loads."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ragcore.errors import ReaderError
from ragcore.readers import SimpleDirectoryReader, load_file

ZTA_PDF = "nist_pdfs/NIST.SP.800-207-ZeroTrustArchitecture.pdf"


def _problem(path: Path) -> ReaderError:
    with pytest.raises(ReaderError) as caught:
        load_file(path)
    error = caught.value
    assert error.path == str(path)
    assert error.hint, "every reader error says what to do"
    assert str(path) in str(error)
    return error


def _write_pdf(path: Path, writer) -> Path:
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def test_empty_file(tmp_path: Path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert "empty" in _problem(path).problem


def test_whitespace_only_file_has_no_text(tmp_path: Path):
    path = tmp_path / "blank.md"
    path.write_text("\n   \n\t\n")
    assert "no text" in _problem(path).problem


def test_binary_junk_with_text_extension(tmp_path: Path):
    path = tmp_path / "junk.txt"
    path.write_bytes(os.urandom(4096))
    assert "binary" in _problem(path).problem


def test_nul_padded_bytes_are_binary(tmp_path: Path):
    path = tmp_path / "zeros.log"
    path.write_bytes(b"header\x00\x00\x00\x00" * 200)
    assert "binary" in _problem(path).problem


def test_directory_named_like_a_file(tmp_path: Path):
    path = tmp_path / "folder.txt"
    path.mkdir()
    assert "directory" in _problem(path).problem


def test_broken_symlink(tmp_path: Path):
    path = tmp_path / "gone.md"
    path.symlink_to(tmp_path / "missing-target.md")
    assert "broken symbolic link" in _problem(path).problem


def test_permission_denied(tmp_path: Path, monkeypatch):
    # Tests run as root, where chmod 000 does not stop reads: simulate the OS refusing.
    path = tmp_path / "secret.txt"
    path.write_text("classified\n")

    def refuse(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", refuse)
    error = _problem(path)
    assert "permission denied" in error.problem and "chmod" in error.hint


def test_missing_file(tmp_path: Path):
    assert "does not exist" in _problem(tmp_path / "nope.pdf").problem


def test_corrupt_pdf(tmp_path: Path):
    path = tmp_path / "corrupt.pdf"
    path.write_bytes(b"%PDF-1.4\n" + os.urandom(20000))
    error = _problem(path)
    assert "damaged" in error.problem
    assert "save" in error.hint


@pytest.mark.timeout(60)
def test_large_junk_pdf_fails_without_hanging(tmp_path: Path):
    path = tmp_path / "junk.pdf"
    path.write_bytes(b"%PDF-1.5\n" + os.urandom(3_000_000))
    assert "damaged" in _problem(path).problem


def test_truncated_pdf(tmp_path: Path, corpus_dir: Path):
    path = tmp_path / "truncated.pdf"
    path.write_bytes((corpus_dir / "nist_pdfs" / "NIST.SP.800-218.pdf").read_bytes()[:200000])
    assert "damaged" in _problem(path).problem


def test_not_a_pdf_at_all(tmp_path: Path):
    path = tmp_path / "letter.pdf"
    path.write_text("Dear reader, this is plain text.")
    assert "not a PDF" in _problem(path).problem


def test_password_protected_pdf(tmp_path: Path, corpus_dir: Path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.add_page(PdfReader(corpus_dir / ZTA_PDF).pages[10])
    writer.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    error = _problem(_write_pdf(tmp_path / "locked.pdf", writer))
    assert "encrypted" in error.problem
    assert "remove the password" in error.hint


def test_pdf_without_text_layer(tmp_path: Path):
    from pypdf import PdfWriter

    writer = PdfWriter()
    for _ in range(3):
        writer.add_blank_page(width=612, height=792)
    error = _problem(_write_pdf(tmp_path / "scan.pdf", writer))
    assert "no extractable text" in error.problem and "scanned" in error.problem
    assert "OCR" in error.hint


def test_invalid_docx(tmp_path: Path):
    path = tmp_path / "old.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + os.urandom(2000))  # an OLE .doc header
    error = _problem(path)
    assert "not a valid .docx" in error.problem
    assert ".doc" in error.hint


def test_invalid_json_names_the_spot(tmp_path: Path):
    path = tmp_path / "bad.json"
    path.write_text('{"a": 1,\n "b": }')
    assert "line 2" in _problem(path).problem


def test_invalid_jsonl_line_names_the_line(tmp_path: Path):
    path = tmp_path / "bad.jsonl"
    path.write_text('{"a": 1}\n{"b": 2}\nnot json\n')
    assert "line 3" in _problem(path).problem


def test_deeply_nested_json(tmp_path: Path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100000 + "]" * 100000)
    assert "nested too deeply" in _problem(path).problem


def test_notebook_without_cells(tmp_path: Path):
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"metadata": {}}))
    assert "not a valid notebook" in _problem(path).problem


def test_csv_with_only_a_header(tmp_path: Path):
    path = tmp_path / "header.csv"
    path.write_text("a,b,c\n")
    assert "no data rows" in _problem(path).problem


def test_html_with_no_visible_text(tmp_path: Path):
    path = tmp_path / "blank.html"
    path.write_text("<html><head><script>x()</script></head><body><p hidden>x</p></body></html>")
    assert "no text" in _problem(path).problem


def test_folder_reports_each_bad_file_and_loads_the_rest(tmp_path: Path):
    from pypdf import PdfWriter

    (tmp_path / "good.txt").write_text("The good file loads.\n")
    (tmp_path / "good.md").write_text("# Also good\n")
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "junk.txt").write_bytes(os.urandom(3000))
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + os.urandom(5000))
    writer = PdfWriter()
    writer.add_blank_page(width=100, height=100)
    writer.encrypt(user_password="pw", algorithm="RC4-128")
    _write_pdf(tmp_path / "locked.pdf", writer)
    (tmp_path / "broken.md").symlink_to(tmp_path / "nowhere.md")
    reader = SimpleDirectoryReader(input_dir=tmp_path)
    docs = reader.load_data()
    assert sorted(d.metadata["file_name"] for d in docs) == ["good.md", "good.txt"]
    failed = {Path(e.path).name: e.problem for e in reader.failures}
    assert set(failed) == {"empty.txt", "junk.txt", "corrupt.pdf", "locked.pdf", "broken.md"}
    assert "encrypted" in failed["locked.pdf"]
    assert all(e.hint for e in reader.failures)


def test_failures_are_logged_not_printed(tmp_path: Path, caplog, capsys):
    (tmp_path / "empty.txt").write_bytes(b"")
    with caplog.at_level("WARNING", logger="ragcore.readers"):
        SimpleDirectoryReader(input_dir=tmp_path).load_data()
    assert "empty.txt" in caplog.text
    captured = capsys.readouterr()
    assert captured.out == ""


def test_a_reader_crash_becomes_that_files_failure(tmp_path: Path, monkeypatch):
    from ragcore.readers import files

    def explode(path: Path):
        raise KeyError("surprise")

    monkeypatch.setitem(files.READERS, ".csv", explode)
    (tmp_path / "a.csv").write_text("x\n1\n")
    (tmp_path / "b.txt").write_text("fine\n")
    reader = SimpleDirectoryReader(input_dir=tmp_path)
    assert [d.text for d in reader.load_data()] == ["fine\n"]
    (failure,) = reader.failures
    assert "KeyError" in failure.problem and failure.path.endswith("a.csv")


def test_reader_error_message_reads_well():
    error = ReaderError("/data/x.pdf", "is encrypted with a password", "remove the password")
    assert str(error) == "/data/x.pdf: is encrypted with a password. remove the password"
