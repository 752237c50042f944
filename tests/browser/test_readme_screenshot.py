"""The README's picture of the app, made by a test so it shows the app as a person gets it:
the Chat page of a one-story index in a workspace where a person keeps one, one question asked
and answered right by the default answering model (the packaged one), with its [1] marker and
the source under it, saved over ``docs/images/app.png``.

Uses the harness of tests/browser/test_browser.py with the packaged embedding model and the
packaged language model (minutes on a busy CPU: the answer is read and written there).
"""

from __future__ import annotations

import re

import pytest
from test_browser import REPO, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)

from ragcore.llms import local_models
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.local_llm,
              pytest.mark.skipif(not local_models.QWEN_CODER_1_5B.installed,
                                 reason="the packaged model is installed by `make install`")]
SCREENSHOT = REPO / "docs" / "images" / "app.png"
STORY = "sherlock_holmes_xhtml/a-scandal-in-bohemia.xhtml"
QUESTION = "What is the name of the King of Bohemia?"
ANSWER_MS = 900_000  # the packaged model reads the passages and writes on a busy CPU

def test_the_readme_screenshot_shows_a_chat_answer(page, tmp_path, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    root = tmp_path / "home" / "ana" / "Documents" / "ragcore-workspace"  # as a person keeps it
    Workspace(root).ingest("holmes", [corpus_dir / STORY])  # the packaged embedder
    proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_LLM="local")
    try:
        page.goto(f"{url}/chat")
        expect(page.get_by_text("Chat with your documents")).to_be_visible(timeout=120_000)
        _wait_idle(page)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(QUESTION)
        box.press("Enter")
        reply = page.get_by_test_id("stChatMessage").nth(1)
        expect(reply).to_contain_text("[1]", timeout=ANSWER_MS)
        expect(page.get_by_role("button", name="Stop")).to_have_count(0, timeout=ANSWER_MS)
        _wait_idle(page)
        expect(reply).to_contain_text("Ormstein")
        assert "Wilhelm" in reply.inner_text(), reply.inner_text()  # the King, not his House
        expect(page.get_by_test_id("stSidebar")).to_contain_text(  # once found (named: Advanced)
            "Answering: the built-in model", timeout=120_000)
        _wait_idle(page)
        source = page.get_by_test_id("stExpander").filter(
            has_text=re.compile(r"\[1\] a-scandal-in-bohemia")).first
        expect(source).to_be_visible()
        page.mouse.move(0, 0)  # no hover highlight in the picture
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT))
    finally:
        stop_app(proc)
    assert SCREENSHOT.stat().st_size > 20_000  # a picture of the page, not a blank one
