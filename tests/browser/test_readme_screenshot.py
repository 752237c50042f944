"""The README's picture of the app, made by a test so it shows the app as it is: the Chat page
of a one-story index, one question asked and answered (the bold short answer, the sentence it
comes from with its [1] marker, the source under it), saved over ``docs/images/app.png``.

Uses the harness of tests/browser/test_browser.py: the packaged embedding model and the offline
extractive answerer, so the answer is the same on every machine and needs no language model.
"""

from __future__ import annotations

import re

import pytest
from test_browser import REPO, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)

from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SCREENSHOT = REPO / "docs" / "images" / "app.png"
STORY = "sherlock_holmes_xhtml/a-scandal-in-bohemia.xhtml"
QUESTION = "What is the name of the King of Bohemia?"


def test_the_readme_screenshot_shows_a_chat_answer(page, tmp_path, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    root = tmp_path / "ws"
    Workspace(root).ingest("holmes", [corpus_dir / STORY])  # the packaged embedder
    proc, url = start_app(root, tmp_path / "streamlit.log")
    try:
        page.goto(f"{url}/chat")
        expect(page.get_by_text("Chat with your documents")).to_be_visible(timeout=120_000)
        _wait_idle(page)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(QUESTION)
        box.press("Enter")
        reply = page.get_by_test_id("stChatMessage").nth(1)
        expect(reply).to_contain_text("[1]", timeout=120_000)
        expect(page.get_by_role("button", name="Stop")).to_have_count(0)
        _wait_idle(page)
        expect(reply.locator("strong").first).to_be_visible()  # the short answer, in bold
        source = page.get_by_test_id("stExpander").filter(
            has_text=re.compile(r"\[1\] a-scandal-in-bohemia")).first
        expect(source).to_be_visible()
        page.mouse.move(0, 0)  # no hover highlight in the picture
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
    finally:
        stop_app(proc)
    assert SCREENSHOT.stat().st_size > 20_000  # a picture of the page, not a blank one
