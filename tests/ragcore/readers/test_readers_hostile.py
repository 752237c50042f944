"""Hostile input is bounded: a file built to exhaust time or memory is refused quickly with a
ReaderError that says what is wrong, while ordinary files of the same kind still read."""

from __future__ import annotations

import io
import time
import zipfile
from pathlib import Path

import pytest

from ragcore.errors import ReaderError
from ragcore.readers import load_file
from ragcore.readers.office import word


def _docx_with_body(tmp_path: Path, name: str, body: bytes) -> Path:
    """A valid .docx (python-docx's template) whose document.xml body is replaced by ``body``."""
    import docx

    template = io.BytesIO()
    docx.Document().save(template)
    path = tmp_path / name
    with zipfile.ZipFile(template) as source, zipfile.ZipFile(
        path, "w", zipfile.ZIP_DEFLATED
    ) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "word/document.xml":
                start = data.index(b"<w:body>") + len(b"<w:body>")
                data = data[:start] + body + data[data.index(b"<w:sectPr", start):]
            target.writestr(info.filename, data)
    return path


def test_docx_paragraph_bomb_is_refused_within_seconds(tmp_path: Path):
    path = _docx_with_body(
        tmp_path, "bomb.docx", b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 2_400_000
    )
    assert path.stat().st_size < 1_000_000, "the bomb is small on disk"
    started = time.perf_counter()
    with pytest.raises(ReaderError) as caught:
        load_file(path)
    assert time.perf_counter() - started < 10
    assert "paragraphs" in caught.value.problem
    assert caught.value.hint


def test_docx_that_expands_past_the_limit_is_refused_before_parsing(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(word, "MAX_DOCX_EXPANDED_BYTES", 1_000_000)
    path = _docx_with_body(tmp_path, "zipbomb.docx", b"<w:p/>" + b" " * 2_000_000)
    with pytest.raises(ReaderError) as caught:
        load_file(path)
    assert "expands to" in caught.value.problem
    assert "1,000,000" in caught.value.problem


def test_ordinary_3000_paragraph_docx_reads_quickly_with_its_structure(tmp_path: Path):
    import docx

    document = docx.Document()
    for section in range(300):
        document.add_heading(f"Section {section}", level=2)
        for line in range(9):
            document.add_paragraph(f"Paragraph {section}.{line} of ordinary prose.")
    document.add_paragraph("first item", style="List Bullet")
    path = tmp_path / "ordinary.docx"
    document.save(path)
    started = time.perf_counter()
    parts = load_file(path)
    elapsed = time.perf_counter() - started
    text = parts[0].text
    assert "## Section 299" in text
    assert "Paragraph 299.8 of ordinary prose." in text
    assert "- first item" in text
    assert elapsed < 2.0, f"3,000 paragraphs took {elapsed:.1f} s"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_byte_order_marks_of_concatenated_files_are_removed(tmp_path: Path, encoding: str):
    path = tmp_path / "joined.txt"
    parts = ["first file\n", "second file\n", "third file\n"]
    path.write_bytes(b"".join(part.encode(encoding) for part in parts))
    text = load_file(path)[0].text
    assert "\ufeff" not in text
    assert text.split() == ["first", "file", "second", "file", "third", "file"]


def _folder_with_outside_link(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("host secret outside the folder")
    folder = tmp_path / "inputs"
    folder.mkdir()
    (folder / "note.txt").write_text("an ordinary note")
    (folder / "inner.txt").write_text("linked within the folder")
    (folder / "link_in.txt").symlink_to(folder / "inner.txt")
    (folder / "link_out.txt").symlink_to(outside / "secret.txt")
    return folder


def test_symlink_leading_outside_the_folder_is_skipped_with_a_reason(tmp_path: Path):
    from ragcore.readers import SimpleDirectoryReader

    folder = _folder_with_outside_link(tmp_path)
    reader = SimpleDirectoryReader(input_dir=folder)
    texts = [document.text for document in reader.load_data()]
    assert not any("host secret" in text for text in texts)
    assert "an ordinary note" in texts
    assert texts.count("linked within the folder") == 2, "links inside the folder still read"
    [skipped] = reader.failures
    assert skipped.path == str(folder / "link_out.txt")
    assert "outside the input folder" in skipped.problem
    assert "follow_symlinks=True" in skipped.hint


def test_follow_symlinks_reads_the_outside_target(tmp_path: Path):
    from ragcore.readers import SimpleDirectoryReader

    folder = _folder_with_outside_link(tmp_path)
    reader = SimpleDirectoryReader(input_dir=folder, follow_symlinks=True)
    texts = [document.text for document in reader.load_data()]
    assert "host secret outside the folder" in texts
    assert reader.failures == []


def _pdf_with_wrong_startxref(path: Path) -> Path:
    import re

    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(100, 100)
    buffer = io.BytesIO()
    writer.write(buffer)
    path.write_bytes(re.sub(rb"startxref\s+\d+", b"startxref\n99", buffer.getvalue()))
    return path


def test_a_damaged_pdf_prints_nothing_to_stderr(tmp_path: Path):
    import subprocess
    import sys

    path = _pdf_with_wrong_startxref(tmp_path / "damaged.pdf")
    with pytest.raises(ReaderError, match="no extractable text"):
        load_file(path)  # PDFium repairs the cross-reference table; the page is blank
    # A program that never configured logging sees nothing on stderr.
    script = (
        "import sys\nfrom ragcore.readers import load_file\n"
        "try:\n    load_file(sys.argv[1])\nexcept Exception:\n    pass\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=60
    )
    assert result.stderr == ""


def test_python_warnings_during_a_pdf_read_are_logged_with_the_file(tmp_path: Path, caplog):
    import logging
    import warnings

    from ragcore.readers.pdf.reader import pdf_warnings_logged

    with caplog.at_level(logging.WARNING), pdf_warnings_logged(tmp_path / "x.pdf"):
        warnings.warn("odd stream length", UserWarning, stacklevel=1)
    assert any(
        "x.pdf" in record.getMessage() and "odd stream length" in record.getMessage()
        for record in caplog.records
    )


def test_text_without_word_breaks_is_refused(tmp_path: Path):
    path = tmp_path / "generated.txt"
    path.write_text("header line\n" + "x" * 2_000_000 + "\n")
    started = time.perf_counter()
    with pytest.raises(ReaderError) as caught:
        load_file(path)
    assert time.perf_counter() - started < 5
    assert "without a word break" in caught.value.problem
    assert "2,000,000" in caught.value.problem


def test_long_ordinary_text_still_reads(tmp_path: Path):
    path = tmp_path / "long.txt"
    path.write_text("plain words in a row " * 100_000)
    assert load_file(path)[0].text.startswith("plain words")


def _folder_with_link_loop(tmp_path: Path) -> Path:
    """The drill's folder: real.txt, loop_a -> loop_b -> loop_a, and links leading outside."""
    outside = tmp_path / "outside"
    (outside / "shelf").mkdir(parents=True)
    (outside / "secret.txt").write_text("host secret outside the folder")
    folder = tmp_path / "d"
    folder.mkdir()
    (folder / "real.txt").write_text("the real text of the folder")
    (folder / "loop_a").symlink_to("loop_b")
    (folder / "loop_b").symlink_to("loop_a")
    (folder / "out.txt").symlink_to(outside / "secret.txt")
    (folder / "shelf").symlink_to(outside / "shelf", target_is_directory=True)
    return folder


def test_a_symlink_loop_is_skipped_with_a_reason_and_the_rest_reads(tmp_path: Path):
    from ragcore.readers import SimpleDirectoryReader

    folder = _folder_with_link_loop(tmp_path)
    reader = SimpleDirectoryReader(input_dir=folder, recursive=True)
    assert [d.text for d in reader.load_data()] == ["the real text of the folder"]
    reasons = {Path(f.path).name: f.problem for f in reader.failures}
    assert set(reasons) == {"loop_a", "loop_b", "out.txt", "shelf"}
    assert "symbolic link in a loop" in reasons["loop_a"] and "'loop_b'" in reasons["loop_a"]
    assert "outside the input folder" in reasons["out.txt"]
    assert "link to the folder" in reasons["shelf"] and "outside" in reasons["shelf"]


def test_a_reader_past_the_recursion_limit_is_a_failure_without_a_traceback(
        tmp_path: Path, monkeypatch, caplog):
    from ragcore.readers import SimpleDirectoryReader, directory

    def too_deep(path):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(directory, "load_file", too_deep)
    (tmp_path / "deep.xml").write_text("<a>" * 10)
    reader = SimpleDirectoryReader(input_dir=tmp_path)
    assert reader.load_data() == []
    [failure] = reader.failures
    assert "nests its structure" in failure.problem and failure.hint
    assert not any(record.exc_info for record in caplog.records)


def test_a_linked_outside_folder_is_reported_even_when_following_file_links(tmp_path: Path):
    from ragcore.readers import SimpleDirectoryReader

    folder = _folder_with_link_loop(tmp_path)
    reader = SimpleDirectoryReader(input_dir=folder, recursive=True, follow_symlinks=True)
    texts = [d.text for d in reader.load_data()]
    assert "host secret outside the folder" in texts  # the file link is followed
    reasons = {Path(f.path).name: f.problem for f in reader.failures}
    assert "link to the folder" in reasons["shelf"], "os.walk never enters it: said, not dropped"
