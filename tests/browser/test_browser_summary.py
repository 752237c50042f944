"""A summary request in Chat, in a real Chromium (issue 56): the first words within 2 s, then
a fresh summary written part by part under how far the model has read, and Stop between parts.

The model is ``tests/support/slow_model.py`` (three seconds of reading before each reply's first
word, a word every 0.15 s); the index holds PEP 8 (no abstract: its quoted sentences come at
once) and PEP 20 (its abstract). The page's clock is read at Enter and when the text appears.
"""

from __future__ import annotations

import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, _shot, _wait_idle, page  # noqa: F401
from test_browser_chat_progress import open_chat, send, slow_model_app, wait_answered


pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture
def peps_app(tmp_path, corpus_dir):
    yield from slow_model_app(tmp_path, [corpus_dir / "python_peps" / name
                                         for name in ("pep-0008.rst", "pep-0020.rst")])


def seconds_until(page, sent: float, locator) -> float:
    locator.first.wait_for(timeout=60_000)
    return (page.evaluate("performance.now()") - sent) / 1000


def test_a_summary_comes_at_once_and_a_fresh_one_part_by_part_until_stopped(
        peps_app, page):  # noqa: F811
    from playwright.sync_api import expect

    open_chat(page, peps_app)
    sent = send(page, "Summarise the Zen of Python")
    shown = seconds_until(page, sent, page.get_by_text("in the document's own words"))
    assert shown <= 2.0, shown
    expect(page.get_by_text("no model wrote or changed it").first).to_be_visible()
    wait_answered(page, 2)  # and the chat titled by the model, which holds its one slot
    sent = send(page, "What is PEP 8 about?")
    shown = seconds_until(page, sent, page.get_by_text("Summary of pep-0008.rst"))
    assert shown <= 2.0, shown
    wait_answered(page, 4)
    fresh = page.get_by_role("button", name="Write a fresh summary")
    expect(fresh).to_have_count(1, timeout=60_000)  # under the last reply only
    sent = page.evaluate("performance.now()")
    fresh.click()
    live = page.locator(".st-key-live_turn")
    shown = seconds_until(page, sent, live.get_by_text("A fresh summary of"))
    assert shown <= 2.0, shown
    expect(live.get_by_text("Reading part 1 of 6")).to_be_visible()  # how far it has read
    expect(live.get_by_text("Part 2 of 6 · passages")).to_be_visible(timeout=60_000)
    _shot(page, "summary-fresh-part-2")
    page.get_by_role("button", name="Stop").click()
    _wait_idle(page)
    expect(page.get_by_text("Stopped: the reply was cut short")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Part 3 of 6 · passages")).to_have_count(0)  # none written after
    sent = send(page, "Is flat better than nested?")
    expect(page.get_by_test_id("stChatMessage")).to_have_count(8, timeout=120_000)
    expect(page.locator(".st-key-live_turn")).to_have_count(0, timeout=120_000)
