"""RTF, e-mail, and files of unknown type (no extension, unfamiliar extensions) read by content."""

from __future__ import annotations

import io
from email.message import EmailMessage
from pathlib import Path

import pytest

from ragcore.errors import ReaderError
from ragcore.readers import ACCEPTS_ANY_EXTENSION, SimpleDirectoryReader, load_file

# --- RTF --------------------------------------------------------------------------------------


def test_rtf_text_with_code_page_escapes_and_no_control_words(tmp_path: Path):
    path = tmp_path / "memo.rtf"
    path.write_bytes(
        rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}"
        rb"{\b Relocation memo}\par The caf\'e9 on the ground floor closes in May.\par"
        rb"\u8364? 40 per desk.\par}"
    )
    (doc,) = load_file(path)
    assert doc.text.startswith("Relocation memo\nThe café on the ground floor closes in May.")
    assert "€ 40 per desk." in doc.text
    assert "fonttbl" not in doc.text and "Times New Roman" not in doc.text
    assert doc.metadata["file_type"] == "application/rtf"


def test_rtf_without_header_is_refused(tmp_path: Path):
    path = tmp_path / "plain.rtf"
    path.write_text("just text")
    with pytest.raises(ReaderError, match="not an RTF file"):
        load_file(path)


# --- e-mail -----------------------------------------------------------------------------------


def _message(html_only: bool = False) -> EmailMessage:
    message = EmailMessage()
    message["Subject"] = "Relocation: new dates"
    message["From"] = "Ana Silva <ana@example.org>"
    message["To"] = "team@example.org"
    message["Date"] = "Tue, 05 Mar 2024 09:30:00 +0100"
    html = "<html><body><p>The move is on <b>12 April</b>.</p><script>x()</script></body></html>"
    if html_only:
        message.set_content(html, subtype="html")
    else:
        message.set_content("The move is on 12 April.\nBring your badge.\n")
        message.add_alternative(html, subtype="html")
        message.add_attachment(b"%PDF-1.4 ...", maintype="application", subtype="pdf",
                               filename="floor-plan.pdf")
    return message


def test_eml_headers_plain_body_and_attachment_names(tmp_path: Path):
    path = tmp_path / "move.eml"
    path.write_bytes(bytes(_message()))
    (doc,) = load_file(path)
    assert doc.text == (
        "Subject: Relocation: new dates\nFrom: Ana Silva <ana@example.org>\n"
        "To: team@example.org\nDate: Tue, 05 Mar 2024 09:30:00 +0100\n\n"
        "The move is on 12 April.\nBring your badge.\n\n"
        "Attachments:\n- floor-plan.pdf (application/pdf)"
    )
    assert doc.metadata["title"] == "Relocation: new dates"
    assert doc.metadata["author"] == "Ana Silva <ana@example.org>"
    assert doc.metadata["date"] == "2024-03-05T09:30:00+01:00"
    assert doc.metadata["file_type"] == "message/rfc822"


def test_eml_html_only_body_goes_through_the_html_reader(tmp_path: Path):
    path = tmp_path / "html.eml"
    path.write_bytes(bytes(_message(html_only=True)))
    (doc,) = load_file(path)
    assert doc.text.endswith("\n\nThe move is on 12 April.")
    assert "<b>" not in doc.text and "x()" not in doc.text


def test_eml_that_is_no_message_is_refused(tmp_path: Path):
    path = tmp_path / "notes.eml"
    path.write_text("shopping list: eggs, milk\n")
    with pytest.raises(ReaderError, match="not an e-mail message"):
        load_file(path)


# --- files of unknown type --------------------------------------------------------------------


CHANGELOG = "gzip (1.12-1) unstable; urgency=medium\n\n  * New upstream release.\n"


def test_text_files_with_unknown_or_no_extension_are_read_as_text(tmp_path: Path):
    assert ACCEPTS_ANY_EXTENSION
    files = {
        "gzip-changelog.Debian": CHANGELOG,
        "dpkg-README.api": "The dpkg API is documented in the headers.\n",
        "copyright": "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/\n",
        "notes.cfg": "naïve café = yes\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        (doc,) = load_file(tmp_path / name)
        assert doc.text == text


def test_binary_file_of_unknown_type_is_refused_saying_why(tmp_path: Path):
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(range(256)) * 40)
    with pytest.raises(ReaderError) as caught:
        load_file(path)
    assert "not a document ragcore can read (type '.jpg', binary content)" in str(caught.value)
    assert "PDF" in caught.value.hint and ".pptx" in caught.value.hint
    bare = tmp_path / "blob"
    bare.write_bytes(b"\x00\x01\x02" * 100)
    with pytest.raises(ReaderError, match="no extension, binary content"):
        load_file(bare)
    # One NUL byte in otherwise printable bytes: never text (an SQLite database starts so).
    database = tmp_path / "places.sqlite"
    database.write_bytes(b"SQLite format 3\x00" + b"CREATE TABLE places (name TEXT);" * 200)
    with pytest.raises(ReaderError, match="binary content"):
        load_file(database)


def test_documents_without_extension_are_read_by_their_signature(tmp_path: Path):
    import docx

    pdf = tmp_path / "manual"
    pdf.write_bytes((Path(__file__).resolve().parents[2] / "data" / "gzip-manpage.pdf").read_bytes())
    pages = load_file(pdf)
    assert len(pages) > 1 and pages[0].metadata["page"] == 1
    assert pages[0].metadata["file_type"] == "application/pdf"
    document = docx.Document()
    document.add_paragraph("Minutes of the relocation meeting")
    buffer = io.BytesIO()
    document.save(buffer)
    (tmp_path / "minutes").write_bytes(buffer.getvalue())
    (doc,) = load_file(tmp_path / "minutes")
    assert doc.text == "Minutes of the relocation meeting"
    assert doc.metadata["file_type"].endswith("wordprocessingml.document")


def test_old_binary_office_files_get_advice_to_save_them_anew(tmp_path: Path):
    path = tmp_path / "budget.xls"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    with pytest.raises(ReaderError, match="old binary Office file") as caught:
        load_file(path)
    assert ".xlsx" in caught.value.hint


def test_folder_scan_reads_text_of_any_name_and_reports_binary_files(tmp_path: Path):
    (tmp_path / "gzip-changelog.Debian").write_text(CHANGELOG)
    (tmp_path / "copyright").write_text("Copyright 2024 The Authors\n")
    (tmp_path / "report.md").write_text("# Report\n")
    (tmp_path / "archive.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + b"\x00" * 200)
    reader = SimpleDirectoryReader(input_dir=tmp_path)
    docs = reader.load_data()
    assert sorted(d.metadata["file_name"] for d in docs) == [
        "copyright", "gzip-changelog.Debian", "report.md"
    ]
    (failure,) = reader.failures
    assert Path(failure.path).name == "archive.tar.gz"
    assert "binary content" in failure.problem


def test_workspace_file_collection_passes_unknown_types_on_to_be_reported(tmp_path: Path):
    from ragcore.workspace.ingest.index_files import collect_files

    (tmp_path / "copyright").write_text("Copyright 2024 The Authors\n")
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00")
    names = sorted(path.name for path in collect_files([tmp_path]))
    assert names == ["copyright", "photo.jpg"]  # the ingest report then says why photo.jpg failed


def test_a_mixed_folder_of_every_common_type_reads_without_failures(tmp_path: Path):
    from support.office_files import make_eml, make_mixed_folder, make_rtf

    files = make_mixed_folder(tmp_path / "mixed")
    files += [make_rtf(tmp_path / "mixed" / "memo.rtf"), make_eml(tmp_path / "mixed" / "m.eml")]
    reader = SimpleDirectoryReader(input_dir=tmp_path / "mixed")
    docs = reader.load_data()
    assert reader.failures == []
    assert {d.metadata["file_name"] for d in docs} == {path.name for path in files}
