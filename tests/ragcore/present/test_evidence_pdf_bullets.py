"""List bullets drawn with a glyph that has no Unicode mapping are kept as "•".

NIST SP 800-94 (intrusion detection) sets its 349 list bullets in a font whose bullet glyph PDFium
reads as the control character U+001F; they were dropped with the other control characters, so
its lists read " Network-Based, which monitors…" with nothing to show they are items.
"""

from __future__ import annotations

from pathlib import Path

from ragcore.readers import load_file
from ragcore.readers.pdf.reader import _clean


def test_unmapped_bullet_glyphs_at_a_line_start_become_bullets(corpus_dir: Path):
    pdf = corpus_dir / "nist_pdfs" / "nistspecialpublication800-94.pdf"
    pages = {doc.metadata["page"]: doc.text for doc in load_file(pdf)}
    assert "IDPS technologies:\n• Network-Based, which monitors" in pages[9]
    assert sum(text.count("•") for text in pages.values()) >= 349


def test_a_control_character_inside_a_line_is_still_dropped():
    assert _clean("\x1f first item\r\n\x1f second\r\na\x1fb") == "• first item\n• second\nab"
