"""In a real Chromium: the Query page's Retriever choice and the Compare retrievers tab.

A workspace with one index (the speech and a PEP, fake embedder) is built before the app
starts; the app runs with ``RAGCORE_EMBEDDER=fake`` and the extractive backend, so the test
drives only what the browser adds: the sidebar choice, the tab, the button and the results.
"""

from __future__ import annotations


import pytest
from test_browser import (
    _require_browser, _shot, _wait_idle, page, start_app, stop_app,  # noqa: F401
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]
QUESTION = "What did the speech say about Ukraine and Putin?"


@pytest.fixture
def docs_app(tmp_path, corpus_dir):
    _require_browser()
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace

    root = tmp_path / "workspace"
    Workspace(root, embedder=FakeEmbedder()).ingest("docs", [
        corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
        corpus_dir / "python_peps" / "pep-0020.rst"])
    (root / "app-preferences.json").write_text('{"advanced": true}', encoding="utf-8")
    proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake")
    try:
        yield url
    finally:
        stop_app(proc)


def _choose(page, box, option: str) -> None:
    """Pick ``option`` in the select ``box``. The box is scrolled into view first: clicked while
    the sidebar scrolls to it, the list opens and closes again at once (seen in Chromium)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    choice = page.get_by_role("option", name=option, exact=True)
    for _ in range(5):
        box.scroll_into_view_if_needed()
        page.wait_for_timeout(300)
        box.click()
        try:
            choice.wait_for(state="visible", timeout=3000)
            break
        except PlaywrightTimeout:
            continue
    choice.click()


def test_choose_a_retriever_ask_and_compare_retrievers(docs_app, page):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{docs_app}/query")
    _wait_idle(page)
    sidebar, main = page.get_by_test_id("stSidebar"), page.get_by_test_id("stMain")
    _choose(page, sidebar.get_by_role("combobox", name="Retriever", exact=True),
            "Sentence window")
    _wait_idle(page)
    expect(sidebar.get_by_text("Find the single best sentences")).to_be_visible()
    expect(sidebar.get_by_text("Not available now: Query fusion, HyDE, LLM rerank")).to_be_visible()

    main.get_by_role("textbox", name="Your question").fill(QUESTION)
    main.get_by_role("textbox", name="Your question").press("Enter")
    _wait_idle(page)
    main.get_by_role("button", name="Ask").click()
    _wait_idle(page)
    expect(main.get_by_text("retriever Sentence window")).to_be_visible()
    _shot(page, "retriever-answer")

    main.get_by_role("tab", name="Compare retrievers").click()
    main.get_by_role("button", name="Compare retrievers").click()
    _wait_idle(page)
    panel = main.get_by_role("tabpanel", name="Compare retrievers")
    for label in ("Standard", "Auto-merging", "Sentence window"):
        expect(panel.get_by_text(label, exact=True).last).to_be_visible()
    expect(panel.get_by_text("state_of_the_union.txt").first).to_be_visible()
    _shot(page, "retriever-compare")
