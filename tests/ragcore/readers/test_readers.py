"""Every file format on real files from the shared corpus and on files the tests write."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ragcore.readers import MIME_TYPES, SUPPORTED_EXTENSIONS, load_file
from ragcore.types import MetadataMode

ZTA_PDF = "nist_pdfs/NIST.SP.800-207-ZeroTrustArchitecture.pdf"


@pytest.fixture(scope="module")
def zta_pages(corpus_dir: Path):
    return load_file(corpus_dir / ZTA_PDF)


def test_supported_extensions_cover_every_format():
    expected = {".txt", ".text", ".log", ".rst", ".md", ".markdown", ".pdf", ".docx", ".html",
                ".htm", ".xhtml", ".csv", ".tsv", ".json", ".jsonl", ".ipynb", ".pptx", ".xlsx",
                ".xlsm", ".epub", ".rtf", ".eml"}
    assert set(SUPPORTED_EXTENSIONS) == expected
    assert list(SUPPORTED_EXTENSIONS) == sorted(SUPPORTED_EXTENSIONS)
    assert set(MIME_TYPES) == expected


@pytest.mark.parametrize("suffix", [".txt", ".text", ".log", ".markdown", ".htm"])
def test_every_text_suffix_is_read(tmp_path: Path, suffix: str):
    path = tmp_path / f"sample{suffix}"
    path.write_text("<p>Plain words.</p>\n" if suffix == ".htm" else "Plain words.\n")
    (doc,) = load_file(path)
    assert doc.text.strip() == "Plain words."
    assert doc.metadata["file_type"] == MIME_TYPES[suffix]


def test_importing_readers_loads_no_parser():
    code = (
        "import sys, ragcore.readers; "
        "print([m for m in ('pypdf', 'pypdfium2', 'docx', 'pptx', 'openpyxl', 'ebooklib', "
        "'striprtf', 'bs4', 'charset_normalizer') if m in sys.modules])"
    )
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- PDF -------------------------------------------------------------------------------------


def test_pdf_one_document_per_page_with_labels(zta_pages, corpus_dir: Path):
    assert len(zta_pages) == 59
    path = (corpus_dir / ZTA_PDF).resolve()
    for number, doc in enumerate(zta_pages, start=1):
        assert doc.metadata["page"] == number
        assert doc.metadata["page_label"] == str(number)  # the file has no label tree
        assert doc.doc_id == f"{path}#page={number}"
        assert doc.metadata["file_type"] == "application/pdf"
        assert doc.metadata["file_name"] == "NIST.SP.800-207-ZeroTrustArchitecture.pdf"


def test_pdf_page_text_is_the_pages_content(zta_pages):
    page = zta_pages[10]
    assert "1.1 History of Zero Trust Efforts Related to Federal Agencies" in page.text
    assert "Jericho Forum" in page.text
    assert any("zero trust architecture" in doc.text.lower() for doc in zta_pages[:12])


def test_pdf_running_headers_are_removed(zta_pages):
    body_pages = zta_pages[10:50]
    assert not any(doc.text.startswith("NIST SP 800-207") for doc in body_pages)
    assert not any("available free of charge from" in doc.text for doc in body_pages)


def test_pdf_page_numbers_kept_out_of_embedding_but_label_shown_to_llm(zta_pages):
    doc = zta_pages[10]
    assert "page" not in doc.metadata_str(MetadataMode.EMBED)
    assert "page_label: 11" in doc.metadata_str(MetadataMode.LLM)
    assert "page: 11" not in doc.metadata_str(MetadataMode.LLM)


def test_pdf_page_labels_come_from_the_label_tree(tmp_path: Path, corpus_dir: Path):
    from pypdf import PdfReader, PdfWriter
    from pypdf.constants import PageLabelStyle

    source = PdfReader(corpus_dir / ZTA_PDF)
    writer = PdfWriter()
    for index in range(9, 13):
        writer.add_page(source.pages[index])
    writer.set_page_label(0, 1, style=PageLabelStyle.LOWERCASE_ROMAN)
    writer.set_page_label(2, 3, style=PageLabelStyle.DECIMAL, start=1)
    path = tmp_path / "labelled.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    docs = load_file(path)
    assert [d.metadata["page_label"] for d in docs] == ["i", "ii", "1", "2"]
    assert [d.metadata["page"] for d in docs] == [1, 2, 3, 4]
    assert docs[0].doc_id.endswith("#page=1")


def test_pdf_encrypted_with_empty_user_password_is_read(tmp_path: Path, corpus_dir: Path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    writer.add_page(PdfReader(corpus_dir / ZTA_PDF).pages[10])
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    path = tmp_path / "owner-locked.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    (doc,) = load_file(path)
    assert "Jericho Forum" in doc.text


# --- plain text, RST, RFCs, Markdown ----------------------------------------------------------


def test_plain_text_keeps_the_text_and_has_file_metadata(corpus_dir: Path):
    path = corpus_dir / "state_of_the_union" / "state_of_the_union.txt"
    (doc,) = load_file(path)
    assert doc.text == path.read_text(encoding="utf-8").replace("\r\n", "\n")
    meta = doc.metadata
    assert meta["file_path"] == str(path.resolve())
    assert meta["file_name"] == "state_of_the_union.txt"
    assert meta["file_type"] == "text/plain"
    assert meta["file_size"] == path.stat().st_size
    assert len(meta["creation_date"]) == 10 and meta["last_modified_date"][4] == "-"
    assert "last_accessed_date" not in meta
    assert doc.doc_id == str(path.resolve())


def test_gutenberg_book_is_read_whole(corpus_dir: Path):
    path = corpus_dir / "gutenberg_books" / "pg1342.txt"
    (doc,) = load_file(path)
    assert doc.text.startswith("It is a truth universally acknowledged, that a single man")
    assert len(doc.text) == len(path.read_text(encoding="utf-8"))


def test_rst_pep_is_text_with_rst_mime(corpus_dir: Path):
    (doc,) = load_file(corpus_dir / "python_peps" / "pep-0001.rst")
    assert doc.text.startswith("PEP: 1\nTitle: PEP Purpose and Guidelines")
    assert doc.metadata["file_type"] == "text/x-rst"


def test_rfc_page_headers_and_footers_are_removed(corpus_dir: Path):
    path = corpus_dir / "rfcs" / "rfc3986.txt"
    raw = path.read_text(encoding="utf-8")
    assert "\f" in raw and "[Page 5]" in raw
    (doc,) = load_file(path)
    assert "\f" not in doc.text
    assert "[Page" not in doc.text
    assert "RFC 3986                   URI Generic Syntax" not in doc.text
    assert "Uniform Resource Identifier (URI): Generic Syntax" in doc.text
    # A sentence split by a page break reads as one paragraph again.
    assert 'use the general term "URI" rather than the more restrictive terms\n' in doc.text


def test_markdown_keeps_source_and_takes_first_heading_as_title(corpus_dir: Path):
    path = corpus_dir / "rust_book" / "src" / "ch01-01-installation.md"
    (doc,) = load_file(path)
    assert doc.text == path.read_text(encoding="utf-8")
    assert doc.metadata["title"] == "Installation"
    assert doc.metadata["file_type"] == "text/markdown"
    assert "title: Installation" in doc.metadata_str(MetadataMode.EMBED)


def test_markdown_title_ignores_headings_in_code_and_reads_front_matter(tmp_path: Path):
    fenced = tmp_path / "fenced.md"
    fenced.write_text("```sh\n# not a title\n```\n\nSome text.\n\n## Real Title ##\n")
    assert load_file(fenced)[0].metadata["title"] == "Real Title"
    front = tmp_path / "front.md"
    front.write_text("---\ntitle: 'From Front Matter'\n---\n# Heading\n")
    assert load_file(front)[0].metadata["title"] == "From Front Matter"


# --- HTML / XHTML ------------------------------------------------------------------------------


def test_xhtml_story_visible_text_with_title(corpus_dir: Path):
    (doc,) = load_file(corpus_dir / "sherlock_holmes_xhtml" / "a-case-of-identity.xhtml")
    assert doc.metadata["title"] == "A Case of Identity"
    assert doc.metadata["file_type"] == "application/xhtml+xml"
    assert doc.text.startswith("A Case of Identity\n\n“My dear fellow,” said Sherlock Holmes")
    assert "<p>" not in doc.text and "core.css" not in doc.text
    paragraphs = doc.text.split("\n\n")
    assert len(paragraphs) > 50
    assert "affaire de coeur" in doc.text  # inline <i> flows into its paragraph


def test_html_drops_scripts_styles_hidden_and_keeps_title_on_top(tmp_path: Path):
    page = tmp_path / "page.html"
    page.write_text(
        "<html><head><title>Release  notes</title><style>p {color: red}</style>"
        "<script>var secret = 1;</script></head><body>"
        "<nav>Home</nav><h1>Version 2</h1><p>Faster <b>loading</b> of files.<br>Second line.</p>"
        "<div hidden>hidden text</div><p style='display: none'>invisible</p>"
        "<table><tr><th>Item</th><th>Cost</th></tr><tr><td>Tea</td><td>3</td></tr></table>"
        "<script>alert('x')</script><!-- a comment --><pre>  x = 1\n    y = 2</pre></body></html>",
        encoding="utf-8",
    )
    (doc,) = load_file(page)
    assert doc.metadata["title"] == "Release notes"
    assert doc.text.split("\n\n") == [
        "Release notes",
        "Home",
        "Version 2",
        "Faster loading of files.\nSecond line.",
        "Item | Cost\nTea | 3",
        "  x = 1\n    y = 2",
    ]


def test_html_declared_charset_is_honoured(tmp_path: Path):
    page = tmp_path / "legacy.htm"
    markup = (
        '<html><head><meta charset="windows-1252"><title>Café</title></head>'
        "<body><p>Crème brûlée – “déjà vu”</p></body></html>"
    )
    page.write_bytes(markup.encode("cp1252"))
    (doc,) = load_file(page)
    assert doc.text == "Café\n\nCrème brûlée – “déjà vu”"


def test_html_labelled_latin1_is_read_as_cp1252_like_browsers_do(tmp_path: Path):
    page = tmp_path / "old.html"
    markup = (
        '<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
        "<p>“Smart quotes” – from Word</p>"
    )
    page.write_bytes(markup.encode("cp1252"))
    assert load_file(page)[0].text == "“Smart quotes” – from Word"


# --- DOCX, CSV, JSON, JSONL, notebooks (written by the tests) -----------------------------------


def test_docx_paragraphs_headings_lists_and_tables_in_order(tmp_path: Path):
    import docx

    document = docx.Document()
    document.core_properties.title = "Quarterly Report"
    document.add_heading("Results", level=1)
    document.add_paragraph("Revenue grew by 12 percent.")
    document.add_paragraph("Costs fell", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    cells = {(0, 0): "Region", (0, 1): "Sales", (1, 0): "North", (1, 1): "42"}
    for (row, col), text in cells.items():
        table.cell(row, col).text = text
    document.add_paragraph("")
    document.add_paragraph("After the table.")
    path = tmp_path / "report.docx"
    document.save(path)
    (doc,) = load_file(path)
    assert doc.text == (
        "# Results\n\nRevenue grew by 12 percent.\n\n- Costs fell\n\n"
        "Region | Sales\nNorth | 42\n\nAfter the table."
    )
    assert doc.metadata["title"] == "Quarterly Report"
    assert doc.metadata["file_type"].endswith("wordprocessingml.document")


def test_docx_merged_cells_appear_once(tmp_path: Path):
    import docx

    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    table.cell(0, 0).merge(table.cell(0, 2)).text = "Wide header"
    for col, text in enumerate(["a", "b", "c"]):
        table.cell(1, col).text = text
    path = tmp_path / "merged.docx"
    document.save(path)
    assert load_file(path)[0].text == "Wide header\na | b | c"


def test_csv_rows_as_column_value_lines(tmp_path: Path):
    path = tmp_path / "people.csv"
    path.write_text('name,city,note\nAda,London,"wrote, first program"\nAlan,,codebreaker\n')
    (doc,) = load_file(path)
    assert doc.text == (
        "name: Ada\ncity: London\nnote: wrote, first program\n\nname: Alan\nnote: codebreaker"
    )
    assert doc.metadata["file_type"] == "text/csv"


def test_semicolon_csv_and_tsv(tmp_path: Path):
    semi = tmp_path / "semi.csv"
    semi.write_text("product;price\nTea;3,50\nCake;4,20\n")
    assert load_file(semi)[0].text == "product: Tea\nprice: 3,50\n\nproduct: Cake\nprice: 4,20"
    tsv = tmp_path / "t.tsv"
    tsv.write_text("a\tb\n1\t2\n")
    assert load_file(tsv)[0].text == "a: 1\nb: 2"


def test_json_is_rendered_as_readable_outline(tmp_path: Path):
    path = tmp_path / "config.json"
    value = {"name": "ragcore", "version": 1.5, "tags": ["rag", "search"], "empty": [],
             "owner": {"team": "search", "active": True, "lead": None}}
    path.write_text(json.dumps(value))
    (doc,) = load_file(path)
    assert doc.text == (
        "name: ragcore\nversion: 1.5\ntags:\n  - rag\n  - search\nempty: []\nowner:\n"
        "  team: search\n  active: true\n  lead: null"
    )


def test_json_list_of_records_becomes_blocks(tmp_path: Path):
    path = tmp_path / "records.json"
    path.write_text(json.dumps([{"id": 1, "title": "First"}, {"id": 2, "title": "Second"}]))
    assert load_file(path)[0].text == "id: 1\ntitle: First\n\nid: 2\ntitle: Second"


def test_jsonl_one_document_per_line_with_stable_ids(tmp_path: Path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"event": "login", "user": "ada"}\n\n{"event": "logout", "user": "alan"}\n')
    docs = load_file(path)
    assert [d.text for d in docs] == ["event: login\nuser: ada", "event: logout\nuser: alan"]
    assert [d.metadata["line"] for d in docs] == [1, 3]
    base = str(path.resolve())
    assert [d.doc_id for d in docs] == [f"{base}#line=1", f"{base}#line=3"]
    assert "line" not in docs[0].metadata_str(MetadataMode.EMBED)


def _notebook(cells: list[dict], language: str = "python") -> str:
    return json.dumps({
        "nbformat": 4, "nbformat_minor": 5,
        "metadata": {"language_info": {"name": language}},
        "cells": cells,
    })


def test_notebook_markdown_and_code_without_outputs(tmp_path: Path):
    path = tmp_path / "analysis.ipynb"
    path.write_text(_notebook([
        {"cell_type": "markdown", "metadata": {}, "source": ["# Analysis\n", "We load data."]},
        {"cell_type": "code", "metadata": {}, "execution_count": 1,
         "source": "x = load()\nx.head()",
         "outputs": [{"output_type": "display_data",
                      "data": {"image/png": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAAB",
                               "text/plain": "<Figure>"}}]},
        {"cell_type": "raw", "metadata": {}, "source": "raw stuff"},
        {"cell_type": "code", "metadata": {}, "source": [], "outputs": []},
    ]))
    (doc,) = load_file(path)
    assert doc.text == "# Analysis\nWe load data.\n\n```python\nx = load()\nx.head()\n```"
    assert doc.metadata["file_type"] == "application/x-ipynb+json"


# --- ids, metadata options, unknown types ------------------------------------------------------


def test_ids_are_stable_and_doc_id_base_replaces_the_path(tmp_path: Path):
    path = tmp_path / "note.txt"
    path.write_text("A note about stable ids.\n")
    first, second = load_file(path), load_file(path)
    assert first[0].doc_id == second[0].doc_id == str(path.resolve())
    assert first[0].hash == second[0].hash
    (based,) = load_file(path, doc_id_base="uploads/note.txt")
    assert based.doc_id == "uploads/note.txt"


def test_default_metadata_exclusions_follow_types_defaults(tmp_path: Path):
    path = tmp_path / "note.txt"
    path.write_text("hello\n")
    (doc,) = load_file(path)
    embed = doc.metadata_str(MetadataMode.EMBED)
    assert embed == "file_name: note.txt"
    assert "file_path" in doc.metadata_str(MetadataMode.LLM)


def test_unknown_extension_is_read_as_text(tmp_path: Path):
    path = tmp_path / "script.py"
    path.write_text("def main():\n    return 1\n")
    (doc,) = load_file(path)
    assert doc.text == "def main():\n    return 1\n"
    assert doc.metadata["file_type"].startswith("text/")
