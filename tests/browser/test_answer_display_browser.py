"""The offline answer in a real Chromium (issue 19): upload a story, ask a factoid question on
the Query page, see the bold short answer first, then the quote with its [1] marker, no score in
the answer; the source's passage marks the quoted sentence with the short answer bold inside it;
under Advanced the Trace tab states the answer's score.

Reuses the harness of tests/test_browser.py (the packaged model, the extractive backend). Set
RAGCORE_SCREENSHOTS=<folder> to keep "answer-1-simple" and "answer-2-advanced".
"""

from __future__ import annotations

import re

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
STORY = "sherlock_holmes_xhtml/a-scandal-in-bohemia.xhtml"
QUESTION = "What is the name of the King of Bohemia?"


def test_a_factoid_question_shows_its_short_answer_its_quote_and_the_score_under_advanced(
        app_url, page, corpus_dir):
    from playwright.sync_api import expect

    page.goto(app_url)
    expect(page.get_by_text("What to do next")).to_be_visible(timeout=120_000)
    _go(page, "Upload")
    name_box = page.get_by_role("textbox", name="Name of the new index")
    name_box.fill("holmes")
    name_box.press("Enter")
    _upload(page, corpus_dir / STORY)
    page.get_by_role("button", name="Index 1 file").click()
    expect(page.get_by_test_id("stSidebar").get_by_text(
        re.compile(r"Index a-scandal-in-bohemia\.xhtml into “holmes”: done"))).to_be_visible(
            timeout=WORK_TIMEOUT_MS)

    _go(page, "Query")
    question = page.get_by_role("textbox", name="Your question")
    question.fill(QUESTION)
    question.press("Enter")
    answer = page.get_by_test_id("stMarkdown").filter(has_text="Extractive answer").first
    expect(answer).to_contain_text("[1]", timeout=WORK_TIMEOUT_MS)
    _wait_idle(page)
    short = answer.locator("strong").first  # the short answer, in bold, on the first line
    expect(short).to_be_visible()
    phrase = short.inner_text().strip()
    lines = answer.inner_text().split("\n")
    assert phrase and lines[0].endswith(phrase), lines
    quote = answer.locator("li").first  # the one sentence it comes from, marked [1]
    expect(quote).to_contain_text(phrase)
    expect(quote).to_contain_text("[1]")
    assert "[score" not in answer.inner_text()
    source = page.get_by_test_id("stExpander").filter(
        has_text=re.compile(r"\[1\] a-scandal-in-bohemia")).first
    emphasised = source.locator('mark[style*="font-weight:800"]')
    expect(emphasised.first).to_have_text(re.compile(re.escape(phrase), re.IGNORECASE))
    assert "Answer score" not in page.inner_text("body")
    _shot(page, "answer-1-simple")

    page.get_by_test_id("stSidebar").get_by_text("Advanced", exact=True).click()
    _wait_idle(page)
    page.get_by_role("tab", name="Trace").click()
    expect(page.get_by_text(re.compile(r"^Answer score \d\.\d\d"))).to_be_visible()
    assert "[score" not in answer.inner_text()
    _wait_idle(page)
    _shot(page, "answer-2-advanced")
