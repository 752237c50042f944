"""PDF passages are shown as paragraphs: the printed line ends inside a paragraph become spaces,
while paragraph ends, list items and the lines before them stay; the text keeps its length so
the highlight keeps its place."""

from __future__ import annotations

from pathlib import Path

from ragcore.present.citations import Segment
from ragcore.present.passage.reflow import reflow, reflow_segments, reflows
from ragcore.present.sources import list_sources
from ragcore.present.support import cite
from ragcore.readers import load_file
from ragcore.types import Node, ScoredNode
from webapp.answers.citing import shown_segments

ZTA = "nist_pdfs/NIST.SP.800-207-ZeroTrustArchitecture.pdf"


def _page(corpus_dir: Path, number: int) -> str:
    return next(d.text for d in load_file(corpus_dir / ZTA) if d.metadata["page"] == number)


def test_a_pdf_page_reads_as_paragraphs(corpus_dir: Path):
    page = _page(corpus_dir, 13)
    shown = reflow(page)
    assert len(shown) == len(page)
    assert ("the TICs and perimeter firewalls are less useful for detecting and blocking attacks "
            "from inside the network") in shown
    assert "edge devices, etc.).\nAn operative definition" in shown  # a paragraph ends
    assert "is as follows:\nZero trust (ZT) provides" in shown


def test_list_items_stay_on_their_own_lines(corpus_dir: Path):
    shown = reflow(_page(corpus_dir, 19))
    assert "\n• Policy enforcement point (PEP): This system is responsible for enabling, " \
           "monitoring, and eventually terminating connections" in shown
    assert "the trust zone (see Section 2) hosting the enterprise resource." in shown


def test_numbered_items_start_a_line_after_a_sentence_ends():
    full = "a printed line long enough to fill the whole width of the page it is on"
    text = f"{full},\n{full},\n{full}.\n1. First item.\n2) second item;\n(a) third item"
    assert reflow(text) == text.replace(",\n", ", ")


def test_segments_keep_their_places():
    segments = [Segment("a long line of printed text that fills\nthe", "passage"),
                Segment(" page\nand goes on.", "cited")]
    assert [s.text for s in reflow_segments(segments)] == [
        "a long line of printed text that fills the", " page and goes on."]


def test_the_source_list_shows_a_pdf_passage_reflowed_and_a_text_file_as_written(corpus_dir):
    page = _page(corpus_dir, 13)
    start = page.index("The Trusted Internet")
    text = page[start:start + 400]
    for name, joined in (("zta.pdf", True), ("notes.txt", False)):
        node = ScoredNode(Node(text=text, metadata={"file_name": name}), 0.7)
        listing = list_sources([node], cite("", [text], extractive=True),
                               retrieval_mode="similarity")
        shown = "".join(s.text for s in shown_segments(listing.shown[0], None))
        assert ("firewalls are less useful" in shown) is joined
    assert reflows("ZTA.PDF") and not reflows("rfc.txt") and not reflows(None)
