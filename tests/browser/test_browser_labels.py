"""Every label is true (issue 66), in a real Chromium: with Advanced off, no page says a word a
person does not use ("chunk", "token", "vector", "score", "backend", "ragcore", a mode's internal
name, the workspace folder's path, an embedding model, a digest, an install command), read from
each page's visible text (``document.body.innerText``), the passages being read included; the
passages listed match their count, a source's title says what the answer did with it (no
"strong match" from the search), and a passage starting with a Markdown heading is drawn as
text, not a heading.

The answering model is the loopback Ollama server of tests/support/loopback.py (slowed, so the
passages being read are seen) and the embedder the fake one.
Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from support.loopback import LoopbackServer, Reply
from test_browser import (  # noqa: F401 (the page fixture)
    REPO, _free_port, _go, _require_browser, _shot, _wait_healthy, _wait_idle, page, start_app,
    stop_app,
)
from test_browser_words import write_pdf

from ragcore.chat import ChatMode
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.tools import DEFAULT_QUERY_TOOL_NAME
from ragcore.workspace import Workspace

pytestmark = [pytest.mark.browser, pytest.mark.slow]

WORDS = ("ragcore", "chunk", "token", "vector", "ingest", "score", "backend", "pipeline",
         # a newcomer's walk of the Rust book found these too
         "embedding model", "component 1", "sha-256", "make install", "sentence-transformers",
         "instruct model", "passages to embed")
INTERNAL = [m.value for m in ChatMode if "_" in m.value] + [DEFAULT_QUERY_TOOL_NAME]
LINES = ["Notes on the program",
         "The project began in 1994 at a small university lab in Helsinki.",
         "The program is about 2000 lines of C++ and builds in under a minute.",
         "It runs on Linux, BSD and macOS without changes."]
HEADED = ("# History of the program\n\nThe program was first written in 1994 by two students "
          "at a university lab in Helsinki, and the lines of C++ grew every year after.\n")
QUESTION = "How many lines of C++ is the program?"
REPLY = "The program is about 2000 lines of C++."
PAGES = ("Start", "Upload", "Indexes", "Query", "Chat", "Settings")


def _tab(label: str):
    return lambda page: page.get_by_role("tab", name=label).click()


def _new_index(page) -> None:
    page.get_by_role("main").get_by_role("combobox", name="Index").click()
    page.get_by_role("option", name="New index…").click()


def _packaged_model(page) -> None:
    page.get_by_text("The built-in model (this computer)").click()


# What else a page shows with a click, Advanced still off: Indexes' tabs, Upload's new index,
# Settings with the packaged model (the default a person gets) chosen.
OTHER_VIEWS = {
    "Indexes": {"corpus": _tab("Pictures"), "jobs": _tab("Jobs"),
                "manage": _tab("Rename or delete")},
    "Upload": {"new-index": _new_index},
    "Settings": {"packaged-model": _packaged_model},
}


# The font sizes (px) of the headings inside the sources' passages, and of the page's text.
HEADING_SIZES = """() => {
    const px = e => parseFloat(getComputedStyle(e).fontSize);
    const heads = [...document.querySelectorAll(
        '[data-testid="stExpander"] .rc-passage :is(h1,h2,h3)')];
    const text = document.querySelector('[data-testid="stMarkdownContainer"] p');
    return {heading: heads.map(px), text: px(text)};
}"""


def untrue_words(text: str, folder: str) -> list[str]:
    """The lines of ``text`` holding a word people do not use, or the workspace's path."""
    found = []
    for line in text.splitlines():
        low = line.lower()
        if (any(word in low for word in WORDS) or folder in line
                or any(re.search(rf"\b{name}\b", low) for name in INTERNAL)):
            found.append(line)
    return found


def visible_text(page) -> str:
    return page.evaluate("document.body.innerText")


def test_no_page_says_a_word_people_do_not_use(page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    _require_browser()
    root = tmp_path / "ws"
    notes = tmp_path / "history.md"
    notes.write_text(HEADED, encoding="utf-8")
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "notes", [write_pdf(tmp_path / "program.pdf", LINES), notes])
    found: dict[str, list[str]] = {}
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY, delay=4.0) for _ in range(12)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            page.goto(url)
            expect(page.get_by_text("Your documents, answered")).to_be_visible(timeout=120_000)
            for name in PAGES:
                _go(page, name)
                _wait_idle(page)
                if name == "Query":
                    box = page.get_by_role("textbox").first
                    box.fill(QUESTION)
                    box.press("Enter")
                    _wait_idle(page)
                    page.get_by_role("button", name="Ask").click()
                    expect(page.get_by_text(REPLY).first).to_be_visible(timeout=120_000)
                    _wait_idle(page)
                    # the Markdown source's passage, opened: its heading as big as its text
                    page.get_by_test_id("stExpander").filter(has_text="history.md").locator(
                        "summary").click()
                    page.wait_for_timeout(800)
                    sizes = page.evaluate(HEADING_SIZES)
                    assert sizes["heading"] and max(sizes["heading"]) <= 1.25 * sizes["text"], \
                        sizes
                    # each source's title says what the answer did with it: no search word
                    # ("strong match" on a passage that did not state the answer)
                    titles = page.get_by_test_id("stExpander").locator(
                        "summary").all_inner_texts()
                    assert titles and not [t for t in titles if re.search(
                        r"\bmatch\b|search:", t)], titles
                if name == "Chat":
                    box = page.get_by_test_id("stChatInputTextArea")
                    box.fill(QUESTION)
                    box.press("Enter")
                    being_read = page.get_by_text(re.compile(r"Passages found \(\d+\)"))
                    expect(being_read.first).to_be_visible(timeout=120_000)
                    page.wait_for_timeout(1500)  # the list drawn under its count
                    _shot(page, "labels-chat-reading")
                    found["Chat, while read"] = untrue_words(visible_text(page), str(root))
                    live = page.locator(".st-key-live_turn")
                    said = int(re.search(r"Passages found \((\d+)\)",
                                         live.inner_text()).group(1))
                    listed = live.locator("blockquote").count()  # each passage's text
                    # the heading's words are drawn as a passage's text, not as a heading
                    headings = live.locator("h1, h2, h3, h4").all_inner_texts()
                    assert (said, headings) == (listed, []), live.inner_text()
                    reply = page.get_by_test_id("stChatMessage").nth(1)
                    expect(reply).to_contain_text("2000 lines", timeout=120_000)
                    _wait_idle(page)
                _shot(page, f"labels-{name.lower()}")
                found[name] = untrue_words(visible_text(page), str(root))
                for more, shown in OTHER_VIEWS.get(name, {}).items():
                    shown(page)
                    _wait_idle(page)
                    _shot(page, f"labels-{name.lower()}-{more}")
                    found[f"{name}, {more}"] = untrue_words(visible_text(page), str(root))
        except BaseException:
            _shot(page, "labels-failed-here")
            raise
        finally:
            stop_app(proc)
    said = "\n".join(f"{name}: {line}" for name, lines in found.items() for line in lines)
    assert not said, said
    log = (tmp_path / "streamlit.log").read_text()
    assert "deprecat" not in log.lower(), log[-3000:]


def test_a_reply_stopped_before_its_first_word_says_it_was_stopped(page, tmp_path):  # noqa: F811
    from playwright.sync_api import expect

    _require_browser()
    root = tmp_path / "ws"
    Workspace(root, embedder=FakeEmbedder()).ingest(
        "notes", [write_pdf(tmp_path / "program.pdf", LINES)])
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY, delay=20.0) for _ in range(4)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            page.goto(f"{url}/chat")
            box = page.get_by_test_id("stChatInputTextArea")
            expect(box).to_be_visible(timeout=120_000)
            _wait_idle(page)
            box.fill(QUESTION)
            box.press("Enter")
            expect(page.get_by_text(re.compile(r"Passages found \(\d+\)")).first).to_be_visible(
                timeout=120_000)
            page.get_by_role("button", name="Stop").click()
            reply = page.get_by_test_id("stChatMessage").nth(1)
            expect(reply.get_by_text("Stopped: the reply was cut short")).to_be_visible(
                timeout=60_000)
            expect(reply.get_by_text(re.compile(r"^Sources \(\d+\)"))).to_be_visible()
            _wait_idle(page)
            _shot(page, "labels-stopped")
            assert "Not confirmed" not in reply.inner_text(), reply.inner_text()
        finally:
            stop_app(proc)


# The best 4 passages found, then the 2 the model reads drawn in their place, as the Chat page
# does (``turn_view.found_trace``, then ``show_passages``), the run going on meanwhile.
FOUND_THEN_READ = """
import time
from ragcore.types import Node, ScoredNode
from webapp.chat import turn_view

found = [ScoredNode(Node(f"Passage {i} of the notes.", metadata={"file_name": f"n{i}.txt"}),
                    0.5) for i in range(4)]
turn = turn_view.open_live_turn(stop=False)
turn_view.found_trace(turn, 4).found(found)
time.sleep(1.5)
turn_view.show_passages(turn, found[:2])
time.sleep(60)
"""


def test_the_passages_listed_are_as_many_as_their_count(page, tmp_path):  # noqa: F811
    """"Passages found (2)" stood above four passages: the 4 found first stayed under the 2
    read, drawn in their place, until the run ended."""
    from playwright.sync_api import expect

    _require_browser()
    script = tmp_path / "found_then_read.py"
    script.write_text(FOUND_THEN_READ, encoding="utf-8")
    port, log = _free_port(), tmp_path / "streamlit.log"
    with log.open("a") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(script), "--server.port", str(port),
             "--server.headless", "true", "--server.address", "127.0.0.1",
             "--browser.gatherUsageStats", "false"],
            cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)), stdout=out,
            stderr=subprocess.STDOUT)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        page.goto(f"http://127.0.0.1:{port}")
        expect(page.get_by_text(re.compile(r"Passages found \(2\)"))).to_be_visible(
            timeout=60_000)
        page.wait_for_timeout(1000)
        _shot(page, "labels-found-then-read")
        assert page.locator("blockquote").count() == 2, visible_text(page)
    finally:
        stop_app(proc)
