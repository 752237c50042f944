"""Where a passage sits on a PDF page: found by its letters in PDFium's text, boxes per line."""

from __future__ import annotations

from pathlib import Path

from ragcore.present.passage.page_boxes import Rect, highlight_rects, line_boxes, locate, to_pixels
from ragcore.readers import load_file
from ragcore.readers.pdf.page import page_with_boxes

RAW = "Title\r\nZero trust is an end-to\ufffeend approach to enterprise\ufffeowned\r\nnetworks."


def test_the_cleaned_passage_is_found_in_the_raw_page_text():
    passage = "end-to-end approach to enterprise-owned\nnetworks"
    [(start, end)] = locate(RAW, passage)
    assert RAW[start:end] == "end-to\ufffeend approach to enterprise\ufffeowned\r\nnetworks"


def test_cited_spans_map_to_their_own_characters():
    passage = "end-to-end approach to enterprise-owned networks"
    cited = passage.index("enterprise")
    [(start, end)] = locate(RAW, passage, [(cited, cited + len("enterprise-owned"))])
    assert RAW[start:end] == "enterprise\ufffeowned"


def test_a_passage_not_on_the_page_is_not_found():
    assert locate(RAW, "Nothing like this is written there") == []


def _box(left: float, bottom: float, width: float = 5) -> tuple[float, float, float, float]:
    return (left, bottom, left + width, bottom + 10)


def test_character_boxes_merge_into_one_box_per_line():
    text = "ab\r\ncd"
    boxes = [_box(10, 100), _box(16, 100), None, None, _box(10, 80), _box(16, 80)]
    assert line_boxes(boxes, text, (0, 6)) == [(10, 100, 21, 110), (10, 80, 21, 90)]


def test_pdf_points_become_pixels_from_the_top_left():
    assert to_pixels((10, 700, 20, 710), 792, 2, pad=0) == Rect(20, 164, 40, 184)


def test_the_passage_is_highlighted_where_it_is_printed(corpus_dir: Path):
    path = corpus_dir / "nist_pdfs" / "NIST.SP.800-207-ZeroTrustArchitecture.pdf"
    page = next(d for d in load_file(path) if d.metadata["page"] == 13)
    start = page.text.index("Zero trust is a cybersecurity paradigm")
    passage = page.text[start:start + 400]
    rendered = page_with_boxes(path, 13, scale=1.0)
    whole, cited = highlight_rects(rendered.text, rendered.boxes, passage, [(0, 38)],
                                   page_height=rendered.height, scale=1.0)
    assert 4 <= len(whole) <= 6  # the passage's lines, one rectangle each
    assert len(cited) == 1 and cited[0].top == whole[0].top  # "Zero trust is a…" opens line 1
    assert all(72 - 2 <= r.left and r.right <= 612 - 60 for r in whole)  # inside the margins
    assert rendered.image.size == (612, 792)
