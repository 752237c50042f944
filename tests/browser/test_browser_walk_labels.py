"""Every label true (issue 66), the newcomer walk's open list, in a real Chromium: while a new
question is answered on the Query page, nothing of the last answer stays on screen greyed under
its progress (its sources were: drawn below the answer, they waited, stale, for the new run to
reach them after the whole answer); the agent's mode says it decides whether to search, and
its answer given without a search says so; while a Chat answer is made, the sidebar greys
nothing and says what waits for it.

The model is ``tests/support/slow_model.py`` (three seconds of reading, a word every 0.15 s), or
the loopback Ollama server of tests/support/loopback.py for the agent; the embedder the fake
one. Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import re

import page_record
import pytest
from support.loopback import LoopbackServer, Reply
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401
from test_browser_chat_progress import open_chat, send, slow_app, wait_answered  # noqa: F401
from test_browser_labels import LINES
from test_browser_words import write_pdf

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]

# Whether the live turn is on screen, and the text of each element of the page's main part
# left over from an earlier run (greyed), the live turn's aside.
MAIN_STALE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const live = main.querySelector('.st-key-live_turn');
  const stale = [];
  for (const el of main.querySelectorAll('[data-stale="true"]')) {
    const text = el.innerText.trim();
    if (text && !(live && live.contains(el))) stale.push(text.slice(0, 60));
  }
  return {live: live ? live.innerText : '', stale: stale};
}"""


def ask(page, question: str) -> None:
    from playwright.sync_api import expect

    box = page.get_by_role("textbox", name="Your question")
    box.fill(question)
    box.press("Enter")
    expect(page.locator(".st-key-live_turn")).to_have_count(1, timeout=60_000)
    expect(page.locator(".st-key-live_turn")).to_have_count(0, timeout=120_000)
    expect(page.get_by_text(re.compile(r"^Sources \(\d+\)$"))).to_be_visible(timeout=60_000)
    _wait_idle(page)


def test_the_last_answers_sources_are_not_left_greyed_under_a_new_question(
        slow_app, page):  # noqa: F811
    from playwright.sync_api import expect

    page.goto(f"{slow_app}/query")
    expect(page.get_by_role("textbox", name="Your question")).to_be_visible(timeout=120_000)
    _wait_idle(page)
    ask(page, "What does the Zen of Python say about beauty?")
    _shot(page, "walk-query-first-answer")
    page_record.start(page, MAIN_STALE)
    ask(page, "What does the Zen of Python say about errors?")
    _shot(page, "walk-query-second-answer")
    during = [r for r in page_record.records(page) if r["live"]]
    assert during, "the second answer's progress was never seen"
    greyed = sorted({text for r in during for text in r["stale"]})
    assert not greyed, greyed


AGENT = "Let an agent search step by step"
ANSWERED_AT_ONCE = "Thought: I can answer this without the documents.\nAnswer: About 2000 lines."


def test_an_agent_that_did_not_search_says_so(page, tmp_path):  # noqa: F811
    """The walk: the agent's mode said it searches the documents, then answered without a
    search. Its line says it decides whether to search; its answer says it did not."""
    from playwright.sync_api import expect

    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "notes", [write_pdf(tmp_path / "program.pdf", LINES)])
    with LoopbackServer() as server:
        server.queue(*[Reply(text=ANSWERED_AT_ONCE) for _ in range(6)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            page.goto(f"{url}/chat")
            sidebar = page.get_by_test_id("stSidebar")
            modes = sidebar.get_by_role("combobox", name="Chat mode")
            expect(modes).to_have_value("Answer from the documents", timeout=120_000)
            for _ in range(5):  # a rerun just after the page opens may close the list again
                _wait_idle(page)
                modes.click()
                offered = page.get_by_role("option", name=AGENT)
                if offered.count() or page.wait_for_timeout(1000) or offered.count():
                    break
            page.get_by_role("option", name=AGENT).click()
            expect(modes).to_have_value(AGENT)
            expect(sidebar.get_by_text(re.compile("decides whether to search"))).to_be_visible()
            _wait_idle(page)
            box = page.get_by_test_id("stChatInputTextArea")
            box.fill("How many lines of C++ is the program?")
            box.press("Enter")
            reply = page.get_by_test_id("stChatMessage").nth(1)
            expect(reply).to_contain_text("the agent answered without searching your documents",
                                          timeout=120_000)
            expect(reply).to_contain_text("About 2000 lines.")
            _wait_idle(page)
            _shot(page, "walk-agent-did-not-search")
        finally:
            stop_app(proc)
