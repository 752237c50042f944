"""PDF text quality (no words split by kerning), OCR of scanned pages, and concurrent reads.

tests/data/gzip-manpage.pdf is gzip(1) typeset by groff (``zcat gzip.1.gz | groff -man -Tpdf``):
pypdf extracted it as "e xtension", "preserv e", "ha ve".
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ragcore.readers import load_file
from ragcore.readers.pdf.ocr import ocr_available
from ragcore.types import MetadataMode

MANPAGE = Path(__file__).resolve().parents[2] / "data" / "gzip-manpage.pdf"
ZTA_PDF = "nist_pdfs/NIST.SP.800-207-ZeroTrustArchitecture.pdf"


def _text(path: Path) -> str:
    return "\n".join(doc.text for doc in load_file(path))


# Among the 48 words pypdf 7.1 split in this file (PDFium still splits a few, "e xtension",
# "ha ve", which ``split_words`` joins again: tests/test_readers_split_words.py).
PYPDF_SPLITS = ("k eeping", "o wnership", "def ault", "distrib ution", "achie ved", "lar ger",
                "e xpansion", "con vert", "se veral", "re gular", "W ith", "archi ve",
                "v ersion", "DEFLA TE", "F ormat")


def test_manpage_words_are_not_split_by_kerning():
    text = _text(MANPAGE)
    assert [split for split in PYPDF_SPLITS if split in text] == []
    words = set(re.findall(r"[A-Za-z]+", text))
    assert {split.replace(" ", "") for split in PYPDF_SPLITS} <= words


def test_words_hyphenated_across_lines_are_joined():
    text = _text(MANPAGE)
    assert "\ufffe" not in text and "possible" in text
    assert not re.search(r"[\x00-\x08\x0b\x0e-\x1f]", text)


def test_corpus_pdf_text_keeps_its_words(corpus_dir: Path):
    text = _text(corpus_dir / ZTA_PDF)
    assert "Zero trust architecture" in text or "zero trust architecture" in text
    assert "ar chitecture" not in text and "arc hitecture" not in text


def test_concurrent_reads_give_the_same_pages_as_one_at_a_time(corpus_dir: Path):
    paths = [MANPAGE, corpus_dir / "nist_pdfs" / "NIST.CSWP.04162018.pdf"] * 3
    alone = [[d.text for d in load_file(p)] for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda p: [d.text for d in load_file(p)], paths))
    assert together == alone


def _scan_of(source: Path, target: Path) -> Path:
    """An image-only PDF: the top third of ``source``'s first page as a 200-dpi picture."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(source)
    image = document[0].render(scale=200 / 72).to_pil().convert("RGB")
    document.close()
    image.crop((0, 0, image.width, image.height // 3)).save(target, "PDF", resolution=200)
    return target


def _need_tesseract() -> None:
    if not ocr_available():
        if os.environ.get("CI"):
            pytest.fail("tesseract-ocr must be installed in CI (see .ci/run)")
        pytest.skip("Tesseract is not installed (apt-get install tesseract-ocr)")


@pytest.mark.slow
def test_scanned_pdf_is_read_by_ocr(tmp_path: Path):
    _need_tesseract()
    scan = _scan_of(MANPAGE, tmp_path / "scan.pdf")
    (page,) = load_file(scan)
    assert page.metadata["ocr"] is True and page.metadata["page"] == 1
    words = set(re.findall(r"[a-z]+", page.text.lower()))
    assert {"gzip", "compress", "files", "synopsis"} <= words
    assert "ocr" not in page.metadata_str(MetadataMode.EMBED)


def test_scan_without_any_text_still_says_so(tmp_path: Path):
    from PIL import Image

    path = tmp_path / "blank-scan.pdf"
    Image.new("RGB", (850, 1100), "white").save(path, "PDF", resolution=100)
    with pytest.raises(Exception, match="no extractable text in 1 page") as caught:
        load_file(path)
    assert "OCR" in caught.value.hint


def test_ocr_stops_at_its_page_limit_and_says_so(tmp_path: Path, monkeypatch, caplog):
    import logging

    from PIL import Image

    from ragcore.readers.pdf import reader as pdf

    _need_tesseract()
    monkeypatch.setattr(pdf, "MAX_OCR_PAGES", 1)
    path = tmp_path / "blank-pages.pdf"
    pages = [Image.new("RGB", (200, 200), "white") for _ in range(3)]
    pages[0].save(path, "PDF", resolution=100, save_all=True, append_images=pages[1:])
    with caplog.at_level(logging.WARNING), pytest.raises(Exception, match="no extractable text"):
        load_file(path)
    assert any("OCR stops at 1 pages; page 2" in record.getMessage() for record in caplog.records)


def test_a_huge_page_is_rendered_for_ocr_within_the_pixel_limit(monkeypatch):
    import pypdfium2 as pdfium

    from ragcore.readers.pdf import reader as pdf

    document = pdfium.PdfDocument.new()
    document.new_page(14_400, 14_400)  # 200 x 200 inches: 3.6 gigapixels at 300 dpi
    monkeypatch.setattr(pdf, "MAX_OCR_PIXELS", 1_000_000)
    image = pdf._render(document, 0)
    assert image.width * image.height <= 1_000_000 and image.width > 900
    document.close()
