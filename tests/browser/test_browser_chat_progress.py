"""What a person sees while a Chat answer is made (issues 55 and 56), in a real Chromium.

The model is ``tests/support/slow_model.py``: one slot for the whole app, three seconds of
reading before its first word, a word every 0.15 s. A recorder in the page notes on every change
of the page (and every 100 ms) what the newest reply shows: the live turn (passages, reading, draft, check), the text shown as
the answer outside it, and any element left greyed from an earlier run. The tests then read the
record: something within a second of Enter, the reading and the check each shown, no answer
shown and then taken back, nothing of the previous reply greyed while the next is made; Stop,
then a new question, works; two sessions at once each see their place and keep their own chat.
Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from support.slow_model import SlowModel, sitecustomize_dir
from test_browser import CHROMIUM, CHROMIUM_ARGS, _shot, _wait_idle, page, start_app, stop_app  # noqa: F401

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.timeout(900)]
SUPPORT = Path(__file__).resolve().parents[1] / "support"
QUESTIONS = ("What does the Zen of Python say about beauty?",
             "And what does it say about errors?",
             "What does it say about namespaces?",
             "Is flat better than nested?")

RECORDER = """() => {
  window.__seen = [];
  const snap = () => {
    const bubbles = document.querySelectorAll('[data-testid="stChatMessage"]');
    const last = bubbles[bubbles.length - 1];
    const live = last ? last.querySelector('.st-key-live_turn') : null;
    const draft = last ? last.querySelector('.st-key-reply_draft') : null;
    const body = last ? last.querySelector('[class*="st-key-answer_"]') : null;
    const shown = body ? body.querySelector('[data-testid="stMarkdown"]') : null;
    const answer = shown ? shown.innerText.trim() : '';  // the reply's text, not its draft
    const stale = [];  // elements of an earlier run still on screen, greyed
    for (const b of bubbles) {
      for (const el of b.querySelectorAll('[data-stale="true"]')) {
        const text = el.innerText.trim();  // an empty placeholder left over shows nothing
        if (text) stale.push(text.slice(0, 40));
      }
    }
    window.__seen.push({t: performance.now(), n: bubbles.length,
                        live: live ? live.innerText : '', draft: draft ? draft.innerText : '',
                        answer: answer, stale: stale});
  };
  setInterval(snap, 100);  // and on every change, so a state shown briefly is seen too
  new MutationObserver(snap).observe(document.body, {subtree: true, childList: true,
                                                     characterData: true});
}"""


def slow_model_app(tmp_path, peps):
    """The app on the slow model over an index "docs" of the PEP files ``peps``: its URL, and
    the app stopped after the test."""
    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest("docs", peps)
    hook = sitecustomize_dir(tmp_path / "hook")
    proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                          RAGCORE_LLM="slowmodel", PYTHONPATH=f"{hook}:{SUPPORT}")
    try:
        yield url
    finally:
        stop_app(proc)


@pytest.fixture
def slow_app(tmp_path, corpus_dir):
    yield from slow_model_app(tmp_path, [corpus_dir / "python_peps" / "pep-0020.rst"])


def open_chat(page, url: str):
    from playwright.sync_api import expect

    page.goto(f"{url}/chat")
    expect(page.get_by_test_id("stChatInputTextArea")).to_be_visible(timeout=120_000)
    _wait_idle(page)
    page.evaluate(RECORDER)


def send(page, question: str) -> float:
    """Ask ``question``; the page's clock at Enter (ms)."""
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    sent = page.evaluate("performance.now()")
    box.press("Enter")
    return sent


def wait_answered(page, bubbles: int) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stChatMessage")).to_have_count(bubbles, timeout=120_000)
    expect(page.locator(".st-key-live_turn")).to_have_count(0, timeout=120_000)
    expect(page.get_by_role("button", name="Regenerate")).to_have_count(1, timeout=60_000)
    # A first reply's chat is named by the model once the reply is on screen: done when the
    # caption over the chat no longer says "new chat".
    expect(page.get_by_text(re.compile(r"· new chat"))).to_have_count(0, timeout=60_000)
    _wait_idle(page)


def record_since(page, sent: float) -> list[dict]:
    return [r for r in page.evaluate("window.__seen") if r["t"] >= sent]


def first(record: list[dict], sent: float, test) -> float | None:
    """Seconds from Enter to the first sample where ``test`` holds (None: never)."""
    return next(((r["t"] - sent) / 1000 for r in record if test(r)), None)


def shown_then_taken_back(record: list[dict], bubbles: int) -> list[str]:
    """The texts the new reply showed as its answer (outside the live turn) that a later
    sample replaced by another: the count the issue asks to be zero."""
    shown = [r["answer"] for r in record if r["n"] == bubbles and r["answer"]]
    final = shown[-1] if shown else ""
    return sorted({text for text in shown if text != final})


def test_a_chat_answer_shows_its_reading_draft_and_check_and_nothing_is_taken_back(
        slow_app, page):  # noqa: F811
    timings = {}
    open_chat(page, slow_app)
    try:
        for number, question in enumerate(QUESTIONS[:2], 1):
            sent = send(page, question)
            wait_answered(page, 2 * number)
            _shot(page, f"chat-progress-{number}-answered")
            record = record_since(page, sent)
            new = [r for r in record if r["n"] == 2 * number]
            timings[number] = {
                "something": first(new, sent, lambda r: r["live"] or r["answer"]),
                "passages": first(new, sent, lambda r: "Passages found (" in r["live"]),
                "reading": first(new, sent, lambda r: "Reading the passages" in r["live"]),
                "draft": first(new, sent, lambda r: "Draft, being checked" in r["draft"]),
                "checking": first(new, sent, lambda r: "Checking the answer" in r["draft"]),
                "answer": first(new, sent, lambda r: r["answer"] and not r["live"]),
            }
            seen = timings[number]
            assert seen["something"] is not None and seen["something"] <= 1.0, seen
            assert None not in seen.values(), seen  # every state was on screen
            assert (seen["passages"] <= seen["reading"] < seen["draft"] <= seen["checking"]
                    <= seen["answer"]), seen
            assert shown_then_taken_back(record, 2 * number) == []
            reading = [r["live"] for r in new if "Reading the passages" in r["live"]]
            counts = [int(m.group(1)) for m in
                      (re.search(r"Reading the passages: (\d+) of \d+ read", text) for text in reading)
                      if m]
            assert len(set(counts)) >= 2, reading  # the reading moves on
            if number == 2:  # nothing of the first reply greyed while the second is made
                late = [r for r in record if r["t"] - sent > 1500 and r["live"]]
                assert late and not [r["stale"] for r in late if r["stale"]], late[-1]["stale"]
    finally:
        print("CHAT PROGRESS TIMINGS", json.dumps(timings))


def test_stop_then_a_new_question_is_answered(slow_app, page):  # noqa: F811
    from playwright.sync_api import expect

    open_chat(page, slow_app)
    send(page, QUESTIONS[0])
    expect(page.locator(".st-key-live_turn").get_by_text("Reading the passages")).to_be_visible(
        timeout=60_000)
    page.get_by_role("button", name="Stop").click()
    _wait_idle(page)
    expect(page.get_by_text("Stopped: the reply was cut short")).to_be_visible(timeout=60_000)
    sent = send(page, QUESTIONS[2])
    wait_answered(page, 4)
    _shot(page, "chat-progress-stop-then-ask")
    record = record_since(page, sent)
    assert "Zen of Python" in record[-1]["answer"]
    assert shown_then_taken_back(record, 4) == []


def test_two_sessions_at_once_each_see_their_place_and_keep_their_own_chat(
        slow_app, page):  # noqa: F811
    open_chat(page, slow_app)
    send(page, QUESTIONS[0])
    wait_answered(page, 2)  # a saved chat, open in the first session
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.set_default_timeout(180_000)
    open_chat(other, slow_app)  # a second person opens the Chat page: a chat of their own
    assert other.get_by_test_id("stChatMessage").count() == 0
    first_sent = send(page, QUESTIONS[1])
    second_sent = send(other, QUESTIONS[3])
    wait_answered(page, 4)
    wait_answered(other, 2)
    _shot(other, "chat-progress-two-sessions-answered")
    records = (record_since(page, first_sent), record_since(other, second_sent))
    waited = [first(record, sent, lambda r: "Waiting for the model" in r["live"])
              for record, sent in zip(records, (first_sent, second_sent))]
    # Whichever reached the model second waited, and was told so at once; the other never.
    assert sum(w is None for w in waited) == 1, waited
    # "At once": while the one ahead is still reading (the slow model reads 3 s before a word),
    # a bound in the test's own pace rather than the machine's.
    assert max(w for w in waited if w is not None) < SlowModel().read_seconds, waited
    told = {re.sub(r";.*", ".", line) for record in records for r in record  # its place
            for line in r["live"].splitlines() if "Waiting for the model" in line}
    assert told == {"Waiting for the model: yours is next."}, told
    mine, theirs = (re.search(r"chat=([\w-]+)", p.url).group(1) for p in (page, other))
    assert mine != theirs
    mine_shown = " ".join(page.get_by_test_id("stChatMessage").all_inner_texts())
    theirs_shown = " ".join(other.get_by_test_id("stChatMessage").all_inner_texts())
    assert QUESTIONS[1] in mine_shown and QUESTIONS[3] not in mine_shown
    assert QUESTIONS[3] in theirs_shown and QUESTIONS[0] not in theirs_shown
    print("TWO SESSIONS", json.dumps({"waiting shown after s (first, second)": waited}))
