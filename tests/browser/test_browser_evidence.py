"""Evidence that opens where it lives, in a real Chromium (issue 18): upload a PDF, ask on the
Query page by pressing Enter, see [1] markers, open the source in its document and see the PDF
page rendered with the passage highlighted, the original offered for download.

Reuses the harness of tests/test_browser.py. Set RAGCORE_SCREENSHOTS=<folder> to keep a
screenshot per step (look at "evidence-3-document": the tint should sit on the cited lines).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from test_browser import (  # noqa: F401 (fixtures)
    WORK_TIMEOUT_MS,
    _go,
    _shot,
    _upload,
    _wait_idle,
    app_url,
    page,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PDF = "nist_pdfs/NIST.SP.800-207-ZeroTrustArchitecture.pdf"
MARKDOWN = "rust_book/src/ch04-01-what-is-ownership.md"


def test_an_answer_marks_its_sources_and_opens_the_pdf_page(app_url, page, corpus_dir):
    from playwright.sync_api import expect

    page.goto(app_url)
    expect(page.get_by_text("What to do next")).to_be_visible(timeout=120_000)
    _go(page, "Upload")
    name_box = page.get_by_role("textbox", name="Name of the new index")
    name_box.fill("nist")
    name_box.press("Enter")
    for path in (PDF, MARKDOWN):
        _upload(page, corpus_dir / path)
        page.get_by_role("button", name="Index 1 file").click()
        name = re.escape(path.split("/")[-1])
        expect(page.get_by_test_id("stSidebar").get_by_text(
            re.compile(rf"Index {name} into “nist”: done"))).to_be_visible(
                timeout=WORK_TIMEOUT_MS)
        _go(page, "Upload")  # a fresh picker for the next file

    _go(page, "Query")
    question = page.get_by_role("textbox", name="Your question")
    question.fill("What is zero trust architecture?")
    question.press("Enter")  # Enter asks: no click on Ask
    answer = page.get_by_test_id("stMarkdown").filter(has_text="Extractive answer").first
    expect(answer).to_contain_text("[1]", timeout=WORK_TIMEOUT_MS)
    first = page.get_by_test_id("stExpander").filter(
        has_text=re.compile(r"\[1\] NIST\.SP\.800-207-ZeroTrustArchitecture\.pdf · page"))
    expect(first.first).to_contain_text(re.compile(r"quoted in the answer|found by the search"))
    _wait_idle(page)
    _shot(page, "evidence-1-answer")

    first.first.get_by_role("button", name="Open in document").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.get_by_test_id("stImage").first).to_be_visible(timeout=WORK_TIMEOUT_MS)
    expect(dialog.get_by_test_id("stDownloadButton")).to_contain_text(
        "Download NIST.SP.800-207-ZeroTrustArchitecture.pdf")
    expect(dialog).to_contain_text(re.compile(r"tinted (blue|orange|deeper orange)"))
    expect(dialog).to_contain_text("The passage on page 13")  # its band first, no scrolling
    expect(dialog.get_by_text("Whole page 13")).to_be_visible()
    _wait_idle(page)
    _shot(page, "evidence-2-dialog")
    folder = os.environ.get("RAGCORE_SCREENSHOTS")
    if folder:  # the page image alone, at full size, to check where the tint sits
        dialog.get_by_test_id("stImage").first.screenshot(
            path=str(Path(folder) / "evidence-3-document.png"))
    dialog.get_by_role("button", name="Close").click()

    # A Markdown source: rendered (no "###", no "_owner_"), the passage scrolled into view.
    question.fill("What are the ownership rules of Rust?")
    question.press("Enter")
    _wait_idle(page)
    _shot(page, "evidence-4-asked")
    source = page.get_by_test_id("stExpander").filter(
        has_text=re.compile(r"\[\d\] ch04-01-what-is-ownership\.md")).first
    expect(source).to_be_visible(timeout=WORK_TIMEOUT_MS)
    expect(source.locator("h3", has_text="Ownership Rules").or_(
        source.locator("mark, span", has_text="owner"))).not_to_have_count(0)
    assert "### " not in source.inner_text() and "_owner_" not in source.inner_text()
    _wait_idle(page)
    source.get_by_role("button", name="Open in document").click()
    frame = page.get_by_role("dialog").frame_locator("iframe")
    anchor = frame.locator("#rc-passage-start")
    expect(anchor).to_be_in_viewport(timeout=WORK_TIMEOUT_MS)
    expect(frame.locator("h3").first).to_be_visible()  # the document rendered, not raw
    _wait_idle(page)
    _shot(page, "evidence-5-markdown")
