"""PowerPoint, Excel and EPUB files, made with their own libraries at test time and read back."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from support.office_files import make_epub, make_pptx, make_xlsx

from ragcore.errors import ReaderError
from ragcore.readers import load_file
from ragcore.types import MetadataMode


# --- PowerPoint -------------------------------------------------------------------------------


def test_pptx_one_document_per_slide_with_tables_and_notes(tmp_path: Path):
    path = make_pptx(tmp_path / "review.pptx")
    first, second = load_file(path)
    assert first.metadata["slide"] == 1 and first.metadata["title"] == "Quarterly review"
    assert "Relocation of the Lisbon office" in first.text
    assert second.metadata["slide"] == 2 and second.metadata["page_label"] == "2"
    assert second.doc_id == f"{path.resolve()}#page=2"
    assert second.text.startswith("Sales by region\n\nNorth grew fastest\n  driven by the new")
    assert "Region | Sales\nNorth | 120\nSouth | 80" in second.text
    assert second.text.endswith("Notes:\nMention the strike in March.")
    assert second.metadata["file_type"].endswith("presentationml.presentation")
    assert "slide" not in second.metadata_str(MetadataMode.EMBED)
    assert "slide: 2" in second.metadata_str(MetadataMode.LLM)


def test_pptx_zip_bomb_is_refused_before_parsing(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import pptx

    monkeypatch.setattr(pptx, "MAX_PPTX_EXPANDED_BYTES", 10_000)
    with pytest.raises(ReaderError, match="expands to .* over the 10,000-byte limit for .pptx"):
        load_file(make_pptx(tmp_path / "big.pptx"))


def test_pptx_paragraph_bomb_is_refused(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import pptx

    monkeypatch.setattr(pptx, "MAX_PPTX_PARAGRAPHS", 3)
    with pytest.raises(ReaderError, match="more than 3 paragraphs"):
        load_file(make_pptx(tmp_path / "many.pptx"))


def test_not_a_pptx(tmp_path: Path):
    path = tmp_path / "fake.pptx"
    path.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ReaderError, match="not a valid .pptx file") as caught:
        load_file(path)
    assert ".ppt files must be converted" in caught.value.hint


# --- Excel ------------------------------------------------------------------------------------


def test_xlsx_one_document_per_sheet_rows_as_column_value_lines(tmp_path: Path):
    path = make_xlsx(tmp_path / "sales.xlsx")
    sales, notes = load_file(path)
    assert sales.metadata["sheet"] == "Sales" and sales.metadata["sheet_number"] == 1
    assert sales.text == (
        "Sheet: Sales\n\n"
        "Region: North\nUnits: 3\nShipped: 2024-03-01\nPaid: TRUE\n\n"
        "Region: South\nUnits: 2.5\nShipped: 2024-03-02T14:30:00\nPaid: FALSE\n\n"
        "Region: East"
    )
    assert notes.metadata == notes.metadata | {"sheet": "Notes", "sheet_number": 3}
    assert notes.text == "Sheet: Notes\n\nFigures are provisional | see memo 12"
    assert sales.doc_id.endswith("#page=1") and notes.doc_id.endswith("#page=3")


def test_xlsx_with_too_many_cells_is_refused_with_the_limit(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import xlsx

    monkeypatch.setattr(xlsx, "MAX_XLSX_CELLS", 10)
    with pytest.raises(ReaderError, match="more than 10 cells") as caught:
        load_file(make_xlsx(tmp_path / "sales.xlsx"))
    assert ".csv" in caught.value.hint


@pytest.mark.timeout(60)
def test_xlsx_with_too_many_shared_strings_is_refused(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import xlsx

    source = make_xlsx(tmp_path / "sales.xlsx")
    padded = tmp_path / "strings.xlsx"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(padded, "w") as new:
        for info in old.infolist():
            new.writestr(info, old.read(info))
        # openpyxl writes strings inline; Excel keeps them in this table, loaded whole.
        new.writestr("xl/sharedStrings.xml", b"<sst>" + b"<si><t>x</t></si>" * 50 + b"</sst>")
    monkeypatch.setattr(xlsx, "MAX_XLSX_CELLS", 40)
    assert load_file(source)
    with pytest.raises(ReaderError, match="more than 40 shared strings"):
        load_file(padded)


def test_xlsx_with_a_far_away_cell_reads_only_the_cells_present(tmp_path: Path):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet["A1"] = "header"
    sheet.cell(row=1_000_000, column=16_000, value="far away")
    path = tmp_path / "sparse.xlsx"
    book.save(path)
    (doc,) = load_file(path)
    assert "far away" in doc.text


def test_xlsx_sparse_layout_over_the_walk_limit_is_refused(tmp_path: Path, monkeypatch):
    from openpyxl import Workbook

    from ragcore.readers.office import xlsx

    monkeypatch.setattr(xlsx, "MAX_XLSX_WALKED_CELLS", 5_000)
    book = Workbook()
    book.active["A1"] = "header"
    book.active.cell(row=20_000, column=2, value="far")
    path = tmp_path / "sparse.xlsx"
    book.save(path)
    with pytest.raises(ReaderError, match="spreads its cells over more than 5,000 positions"):
        load_file(path)


# --- EPUB -------------------------------------------------------------------------------------


def test_epub_one_document_per_chapter_in_reading_order(tmp_path: Path):
    chapters = [
        ("Arrival", "<p>The ship docked at dawn.</p><p>Nobody was waiting.</p>"),
        ("The Office", "<p>The relocation memo lay on the desk.</p>"),
    ]
    path = make_epub(tmp_path / "letters.epub", chapters)
    docs = load_file(path)
    texts = [d.text for d in docs]
    arrival = next(i for i, t in enumerate(texts) if "ship docked" in t)
    office = next(i for i, t in enumerate(texts) if "relocation memo" in t)
    assert arrival < office
    assert docs[arrival].metadata["chapter"] == "Arrival"
    assert docs[office].metadata["chapter"] == "The Office"
    assert docs[office].metadata["title"] == "The Lisbon Letters"
    assert "The ship docked at dawn.\n\nNobody was waiting." in texts[arrival]
    assert [d.metadata["chapter_number"] for d in docs] == [1, 2]  # the contents page is left out
    assert docs[office].doc_id.endswith("#page=2")
    assert docs[0].metadata["file_type"] == "application/epub+zip"


def test_epub_paragraph_bomb_is_refused(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import epub

    monkeypatch.setattr(epub, "MAX_EPUB_PARAGRAPHS", 5)
    path = make_epub(tmp_path / "bomb.epub", [("Bomb", "<p>x</p>" * 10)])
    with pytest.raises(ReaderError, match="more than 5 paragraphs"):
        load_file(path)


def test_epub_that_expands_past_the_limit_is_refused(tmp_path: Path, monkeypatch):
    from ragcore.readers.office import epub

    monkeypatch.setattr(epub, "MAX_EPUB_EXPANDED_BYTES", 100_000)
    path = make_epub(tmp_path / "big.epub", [("Big", "<p>" + "word " * 50_000 + "</p>")])
    with pytest.raises(ReaderError, match="over the 100,000-byte limit for .epub"):
        load_file(path)


def test_not_an_epub(tmp_path: Path):
    path = tmp_path / "broken.epub"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
    path.write_bytes(buffer.getvalue())
    with pytest.raises(ReaderError, match="not a valid .epub file"):
        load_file(path)
