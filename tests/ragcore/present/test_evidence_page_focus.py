"""'Open in document' shows the band of the PDF page around the passage first (the passage of
NIST SP 800-207 page 13 sat below the dialog's fold), the whole page on request."""

from __future__ import annotations

from ragcore.present.passage.page_boxes import Rect, focus_window


def test_the_band_holds_the_passage_with_a_margin_above_and_below():
    rects = [Rect(100, 1000, 900, 1020), Rect(150, 1030, 880, 1050)]
    assert focus_window(rects, 1000, 1600) == (0, 872, 1000, 1178)


def test_the_band_stops_at_the_page_edges():
    assert focus_window([Rect(10, 5, 50, 30)], 400, 1000) == (0, 0, 400, 110)
    assert focus_window([Rect(10, 960, 50, 990)], 400, 1000) == (0, 880, 400, 1000)


def test_no_band_without_a_passage_or_when_it_fills_the_page():
    assert focus_window([], 400, 1000) is None
    assert focus_window([Rect(0, 100, 10, 200), Rect(0, 800, 10, 900)], 400, 1000) is None


def _show_page() -> None:
    from pathlib import Path

    from ragcore.readers import load_file
    from webapp.indexes.document_view import show_pdf_page

    pdf = Path(__import__("os").environ["EVIDENCE_PDF"])
    text = next(d.text for d in load_file(pdf) if d.metadata["page"] == 13)
    start = text.index("An operative definition")
    show_pdf_page(pdf, 13, text[start:start + 300], [])


def test_the_dialog_shows_the_band_first_and_the_whole_page_on_request(corpus_dir, monkeypatch):
    from streamlit.testing.v1 import AppTest

    pdf = corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf"
    monkeypatch.setenv("EVIDENCE_PDF", str(pdf))
    at = AppTest.from_function(_show_page, default_timeout=60).run()
    assert not at.exception, [e.value for e in at.exception]
    assert [e.label for e in at.expander] == ["Whole page 13"]
    images = at.get("image")
    assert len(images) == 2 and images[0].proto.imgs[0].caption == "The passage on page 13"
