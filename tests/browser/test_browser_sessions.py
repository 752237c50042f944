"""Several people, each in their own place (issue 56), in a real Chromium.

The app answers with ``tests/support/slow_model.py``: one slot for the whole process, three
seconds of reading, then a word every 0.15 s, so questions asked at once queue for it. Three
sessions asking at once each see their place as soon as they wait ("1 question ahead of
yours", then "yours is next") and each keep a chat of their own; Stop gives the slot to the next
in line at once, and the stopped person's next question is answered; two tabs on one ``?chat=``
link never write into one conversation (the second is told, gets a chat of its own, and may read
the first's read-only).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.slow_model import SlowModel
from test_browser import (REPO, _free_port, _shot, _wait_healthy, _wait_idle, page,  # noqa: F401
                          stop_app)
from test_browser_chat_progress import (QUESTIONS, RECORDER, first, open_chat, record_since,
                                        send, slow_app, wait_answered)  # noqa: F401

from webapp.chat.chat_elsewhere import ELSEWHERE_TEXT, READ_ONLY_TEXT

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]
NEXT = "Waiting for the model: yours is next."
ONE_AHEAD = "Waiting for the model: 1 question ahead of yours."


def another_person(page):  # noqa: F811
    """A page in a browser context of its own: another person's browser."""
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.set_default_timeout(180_000)
    return other


def place(line: str) -> str:
    """A waiting line's place, without the estimate after it ("; your turn comes in ...")."""
    return re.sub(r";.*", ".", line)


def told(record: list[dict]) -> list[str]:
    """The places a page's waiting lines said, in order, each once per stretch."""
    lines = [place(line) for r in record for line in r["live"].splitlines()
             if "Waiting for" in line]
    return [line for i, line in enumerate(lines) if i == 0 or lines[i - 1] != line]


def chat_id(page) -> str:  # noqa: F811
    return re.search(r"chat=([\w-]+)", page.url).group(1)


def shown(page) -> str:  # noqa: F811
    return " ".join(page.get_by_test_id("stChatMessage").all_inner_texts())


def test_three_people_at_once_each_see_their_place_and_keep_their_own_chat(
        slow_app, page):  # noqa: F811
    pages = [page, another_person(page), another_person(page)]
    for each in pages:
        open_chat(each, slow_app)
    asked = [QUESTIONS[0], QUESTIONS[2], QUESTIONS[3]]
    sent = [send(each, question) for each, question in zip(pages, asked)]
    for each in pages:
        wait_answered(each, 2)
    _shot(pages[2], "sessions-three-answered")
    records = [record_since(each, at) for each, at in zip(pages, sent)]
    lines = [told(record) for record in records]
    waited = [first(record, at, lambda r: "Waiting for the model" in r["live"])
              for record, at in zip(records, sent)]
    print("THREE SESSIONS", json.dumps({"told": lines, "waiting shown after s": waited}))
    # One went first and never waited; one was next; one had one question ahead of it, then
    # was next: each told from the moment it waited.
    assert sorted(lines, key=len) == [[], [NEXT], [ONE_AHEAD, NEXT]], lines
    # Told while the one ahead is still reading (the slow model reads 3 s before a word): a
    # bound in the test's own pace, not the machine's (a loaded CI machine took 1.8 s).
    assert max(w for w in waited if w is not None) < SlowModel().read_seconds, waited
    assert len({chat_id(each) for each in pages}) == 3
    for each, question in zip(pages, asked):
        others = [q for q in asked if q != question]
        assert question in shown(each) and not any(q in shown(each) for q in others)


def test_stop_gives_the_model_to_the_next_in_line_and_a_new_question_is_answered(
        slow_app, page):  # noqa: F811
    from playwright.sync_api import expect

    other = another_person(page)
    for each in (page, other):
        open_chat(each, slow_app)
    send(page, QUESTIONS[0])
    expect(page.locator(".st-key-live_turn").get_by_text("Reading the passages")).to_be_visible(
        timeout=60_000)
    waiting_sent = send(other, QUESTIONS[3])
    expect(other.locator(".st-key-live_turn").get_by_text(NEXT.rstrip("."))).to_be_visible(
        timeout=30_000)  # its place, an estimate after it once a question was timed
    stopped = other.evaluate("performance.now()")
    page.get_by_role("button", name="Stop").click()
    expect(page.get_by_text("Stopped: the reply was cut short")).to_be_visible(timeout=60_000)
    wait_answered(other, 2)
    record = record_since(other, waiting_sent)
    began = next(((r["t"] - stopped) / 1000 for r in record
                  if r["t"] >= stopped and "Reading the passages" in r["live"]), None)
    print("STOP", json.dumps({"next in line began reading after Stop, s": began}))
    # The slot is free at once: the stopped reply had about 5 s of reading and writing left.
    assert began is not None and began <= 2.5, began
    sent = send(page, QUESTIONS[2])
    wait_answered(page, 4)
    _shot(page, "sessions-stop-then-ask")
    assert "Zen of Python" in record_since(page, sent)[-1]["answer"]
    assert QUESTIONS[3] not in shown(page) and QUESTIONS[0] not in shown(other)


def test_two_tabs_on_one_chat_link_never_write_into_one_conversation(
        slow_app, page):  # noqa: F811
    from playwright.sync_api import expect

    open_chat(page, slow_app)
    send(page, QUESTIONS[0])
    wait_answered(page, 2)
    link = page.url
    assert "chat=" in link
    tab = page.context.new_page()  # the same browser, the same link, a second tab
    tab.set_default_timeout(180_000)
    tab.goto(link)
    expect(tab.get_by_text(ELSEWHERE_TEXT)).to_be_visible(timeout=120_000)
    _wait_idle(tab)
    _shot(tab, "sessions-link-open-elsewhere")
    assert tab.get_by_test_id("stChatMessage").count() == 0  # a chat of its own, empty
    tab.evaluate(RECORDER)
    sent = send(tab, QUESTIONS[3])
    wait_answered(tab, 2)
    assert chat_id(tab) != chat_id(page)
    assert QUESTIONS[3] in shown(tab) and QUESTIONS[0] not in shown(tab)
    assert record_since(tab, sent)[-1]["answer"]  # answered, in its own chat
    # The first tab's conversation holds its own turn only, in the tab and as saved.
    assert QUESTIONS[3] not in shown(page)
    # The second tab may read the first's chat, read-only: no question box there.
    tab.get_by_role("button", name="View that chat (read-only)").click()
    expect(tab.get_by_text(READ_ONLY_TEXT)).to_be_visible(timeout=60_000)
    expect(tab.get_by_test_id("stChatMessage")).to_have_count(2, timeout=60_000)
    expect(tab.get_by_test_id("stChatMessage").first).to_contain_text(QUESTIONS[0])
    _wait_idle(tab)
    _shot(tab, "sessions-link-read-only")
    assert QUESTIONS[0] in shown(tab) and QUESTIONS[3] not in shown(tab)
    assert tab.get_by_test_id("stChatInputTextArea").count() == 0
    assert tab.get_by_role("button", name="Continue it here").count() == 0  # still held
    tab.get_by_role("button", name="Back to my chat").click()
    expect(tab.get_by_test_id("stChatInputTextArea")).to_be_visible(timeout=60_000)
    expect(tab.get_by_test_id("stChatMessage").first).to_contain_text(QUESTIONS[3])
    _wait_idle(tab)
    assert QUESTIONS[3] in shown(tab) and QUESTIONS[0] not in shown(tab)
    # Once the first tab is closed, its chat opens by its link again, to be continued.
    page.close()
    time.sleep(2.0)  # the server notices the closed connection
    again = tab.context.new_page()
    again.set_default_timeout(180_000)
    again.goto(link)
    expect(again.get_by_test_id("stChatMessage").first).to_be_visible(timeout=120_000)
    _wait_idle(again)
    assert QUESTIONS[0] in shown(again) and again.get_by_text(ELSEWHERE_TEXT).count() == 0


def test_stop_ends_a_model_call_the_page_makes_in_its_own_thread(tmp_path, page):  # noqa: F811
    """A follow-up is rewritten by the model in the page's own thread, before the search;
    Streamlit cannot stop that thread while it waits for the model. Stop pressed meanwhile
    must still stop llama.cpp (here scripted, reading for minutes): it did not before the
    engine asked the page now and then (``Reporter.alive``)."""
    from playwright.sync_api import expect

    script = Path(__file__).resolve().parents[1] / "support" / "page_thread_call.py"
    port, log = _free_port(), tmp_path / "streamlit.log"
    with log.open("a") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
             "--server.headless", "true", "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=out,
            stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc, log)
        page.goto(url)
        expect(page.get_by_text("The model reads.")).to_be_visible(timeout=120_000)
        time.sleep(1.0)
        page.get_by_role("button", name="Stop").click()
        expect(page.get_by_text("stopped: True")).to_be_visible(timeout=30_000)
    finally:
        stop_app(proc)
