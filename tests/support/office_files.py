"""Small real Office, EPUB, RTF and e-mail files made with their own libraries, for tests.

Shared by the reader tests and any test that needs a mixed folder of documents (the browser walk).
Each ``make_*`` writes the file at ``path`` and returns ``path``.
"""

from __future__ import annotations

import datetime as dt
from email.message import EmailMessage
from pathlib import Path


def make_pptx(path: Path) -> Path:
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    title = deck.slides.add_slide(deck.slide_layouts[0])
    title.shapes.title.text = "Quarterly review"
    title.placeholders[1].text = "Relocation of the Lisbon office"
    body = deck.slides.add_slide(deck.slide_layouts[1])
    body.shapes.title.text = "Sales by region"
    frame = body.placeholders[1].text_frame
    frame.text = "North grew fastest"
    point = frame.add_paragraph()
    point.text = "driven by the new warehouse"
    point.level = 1
    table = body.shapes.add_table(3, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    for row, cells in enumerate([("Region", "Sales"), ("North", "120"), ("South", "80")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    body.notes_slide.notes_text_frame.text = "Mention the strike in March."
    deck.slides.add_slide(deck.slide_layouts[6])  # blank: no text, skipped
    deck.save(path)
    return path


def make_xlsx(path: Path) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    sales = book.active
    sales.title = "Sales"
    sales.append(["Region", "Units", "Shipped", "Paid"])
    sales.append(["North", 3.0, dt.datetime(2024, 3, 1), True])
    sales.append(["South", 2.5, dt.datetime(2024, 3, 2, 14, 30), False])
    sales.append([None, None, None, None])
    sales.append(["East", None, None, None])
    book.create_sheet("Empty")
    notes = book.create_sheet("Notes")
    notes.append(["Figures are provisional", "see memo 12"])
    book.save(path)
    return path


def make_epub(path: Path, chapters: list[tuple[str, str]] | None = None) -> Path:
    from ebooklib import epub

    chapters = chapters or [
        ("Arrival", "<p>The ship docked at dawn.</p><p>Nobody was waiting.</p>"),
        ("The Office", "<p>The relocation memo lay on the desk.</p>"),
    ]
    book = epub.EpubBook()
    book.set_identifier("ragcore-test-1")
    book.set_title("The Lisbon Letters")
    book.set_language("en")
    items = []
    for number, (title, body) in enumerate(chapters, start=1):
        item = epub.EpubHtml(title=title, file_name=f"chap_{number}.xhtml", lang="en")
        item.content = f"<html><body><h1>{title}</h1>{body}</body></html>"
        book.add_item(item)
        items.append(item)
    book.toc = [epub.Link(item.file_name, item.title, f"c{n}") for n, item in enumerate(items)]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    epub.write_epub(str(path), book)
    return path


def make_rtf(path: Path) -> Path:
    path.write_bytes(
        rb"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0 Times New Roman;}}"
        rb"{\b Relocation memo}\par The caf\'e9 on the ground floor closes in May.\par"
        rb"\u8364? 40 per desk.\par}"
    )
    return path


def make_eml(path: Path) -> Path:
    message = EmailMessage()
    message["Subject"] = "Relocation: new dates"
    message["From"] = "Ana Silva <ana@example.org>"
    message["To"] = "team@example.org"
    message["Date"] = "Tue, 05 Mar 2024 09:30:00 +0100"
    message.set_content("The move is on 12 April.\nBring your badge.\n")
    message.add_attachment(b"%PDF-1.4 ...", maintype="application", subtype="pdf",
                           filename="floor-plan.pdf")
    path.write_bytes(bytes(message))
    return path


MANPAGE_PDF = Path(__file__).resolve().parents[1] / "data" / "gzip-manpage.pdf"


def make_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Relocation plan", level=1)
    document.add_paragraph("The Lisbon office moves to the riverside building in April.")
    document.save(path)
    return path


def make_mixed_folder(folder: Path) -> list[Path]:
    """One file of each common type a person uploads, plus an extension-less text file."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf = folder / "gzip-manual.pdf"
    pdf.write_bytes(MANPAGE_PDF.read_bytes())
    changelog = folder / "changelog"
    changelog.write_text("relocation (1.1) stable\n\n  * Moved the archive to the new office.\n",
                         encoding="utf-8")
    return [
        pdf,
        make_docx(folder / "plan.docx"),
        make_pptx(folder / "review.pptx"),
        make_xlsx(folder / "sales.xlsx"),
        make_epub(folder / "letters.epub"),
        changelog,
    ]
