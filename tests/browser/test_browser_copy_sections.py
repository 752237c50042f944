"""Copy of a reply whose sources have no page (issue 66, the fourth walk), in a real Chromium:
each footnote on the clipboard names the Markdown file and the section its passage is in
("[1] ch03-02-data-types.md, section “Integer Types”"), read from the file; the walk's
clipboard named the file alone.

Extractive answers and the fake embedder: no model, a few seconds a reply.
"""

from __future__ import annotations

import re

import pytest
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)
from test_browser_chat_versions import _ask

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow]
CHAPTER = "ch03-02-data-types.md"
QUESTION = "What is the default integer type in Rust?"
SECTIONS = ("Data Types", "Scalar Types", "Integer Types", "Floating-Point Types",
            "Numeric Operations", "The Boolean Type", "The Character Type", "Compound Types",
            "The Tuple Type", "The Array Type", "Array Element Access",
            "Invalid Array Element Access")  # the chapter's headings


def test_copy_names_each_markdown_source_s_section(page, tmp_path, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "book", [corpus_dir / "rust_book" / "src" / CHAPTER])
    proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake")
    try:
        page.goto(f"{url}/chat")
        expect(page.get_by_text("Chat with your documents")).to_be_visible(timeout=120_000)
        _wait_idle(page)
        _ask(page, QUESTION, expect)
        page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
        reply = page.get_by_test_id("stChatMessage").last
        reply.get_by_role("button", name="Copy").click()
        expect(reply.get_by_role("button", name="Copied")).to_be_visible()
        copied = page.evaluate("navigator.clipboard.readText()")
        _shot(page, "copy-sections")
    finally:
        stop_app(proc)
    notes = copied.rsplit("\n\n", 1)[-1].splitlines()  # the footnotes, after the reply
    assert notes[0].startswith("[1] "), copied
    for note in notes:
        named = re.fullmatch(rf"\[\d+\] {re.escape(CHAPTER)}, section “(.+)”", note)
        assert named and named[1] in SECTIONS, copied
