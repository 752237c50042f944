"""One conversation in a real Chromium (issue 18): a file dropped into the chat with its progress
inline, a question scoped to one file, Stop on a streaming reply, Regenerate, Edit and resend,
Copy (one click fills the clipboard with the reply as shown, checked, in plain text), and
titled chats grouped by day with one pinned.

The answers come from the loopback Ollama server of tests/support/loopback.py, streaming a word every
``WORD_SECONDS`` (slow enough to press Stop mid-reply); the embedder is the fake one, so the
walk needs no model. Set RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from support.loopback import LoopbackServer, Reply
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)

from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat

pytestmark = [pytest.mark.browser, pytest.mark.slow]
WORD_SECONDS = 0.08
ROOT: list[Path] = []  # the walk's workspace, for _until
REPLY = " ".join(["The passages say the harbour levy pays for the lighthouse keepers."] * 6)


def _workspace(root: Path, corpus_dir: Path) -> Path:
    ws = Workspace(root, embedder=FakeEmbedder())
    ws.ingest("docs", [corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
                       corpus_dir / "python_peps" / "pep-0020.rst"])
    now = datetime.now(timezone.utc)
    for title, days in (("Budget questions", 1), ("Old notes on PEP 20", 9)):
        when = (now - timedelta(days=days)).replace(microsecond=0).isoformat()
        chat = SavedChat(index="docs", chat_mode="condense_plus_context", title=title,
                         created=when, updated=when)
        chat.add_message("user", f"{title}?")
        chat.add_message("assistant", "An earlier answer.")
        chat.updated = when
        ws.save_chat(chat)
    return root


def _saved(root: Path) -> dict:
    newest = max((root / "chats").glob("*.json"), key=lambda p: p.stat().st_mtime)
    return json.loads(newest.read_text())


def _saved_now() -> dict:
    return _saved(ROOT[0])


def _until(check, seconds: float = 60.0) -> dict:
    """The newest saved chat once ``check`` holds for it (the page saves it as a run ends)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            chat = _saved_now()
            if check(chat):
                return chat
        except (OSError, ValueError):  # written at this moment: read it again
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"the saved chat never became as expected: {chat}")
        time.sleep(0.3)


def _ask(page, question: str) -> None:
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")  # Enter sends


def _answered(page, question: str, expect) -> None:
    """Wait until ``question`` is on the page and its reply has streamed to the end."""
    expect(page.get_by_text(question, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Stop")).to_have_count(0)
    _wait_idle(page)


def test_one_conversation(page, tmp_path, corpus_dir):  # noqa: F811 (fixture)
    from playwright.sync_api import expect

    root = _workspace(tmp_path / "ws", corpus_dir)
    ROOT[:] = [root]
    with LoopbackServer() as server:
        server.queue(*[Reply(text=REPLY, chunk_delay=WORD_SECONDS) for _ in range(40)])
        proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake",
                              RAGCORE_LLM="ollama:llama3.1",
                              RAGCORE_LLM_BASE_URL=server.ollama_url)
        try:
            _walk(page, url, root, corpus_dir, expect)
        except BaseException:
            _shot(page, "chat-failed-here")
            raise
        finally:
            stop_app(proc)


def _walk(page, url: str, root: Path, corpus_dir: Path, expect) -> None:
    page.set_default_timeout(60_000)
    expect.set_options(timeout=60_000)  # replies stream for seconds (and titles, condensing)
    page.goto(f"{url}/chat")
    expect(page.get_by_text("Chat with your documents")).to_be_visible(timeout=120_000)
    _wait_idle(page)
    page.get_by_role("button", name="New chat").click()
    _wait_idle(page)

    book = corpus_dir / "gutenberg_books" / "pg11.txt"
    page.get_by_test_id("stChatInput").locator('input[type="file"]').set_input_files(str(book))
    expect(page.get_by_role("button", name="Remove pg11.txt")).to_be_visible()
    expect(page.get_by_role("button", name="Send message")).to_be_enabled()
    _ask(page, "What does the harbour levy pay for?")
    expect(page.get_by_text("Added pg11.txt")).to_be_visible()
    _shot(page, "chat-1-file-dropped")
    expect(page.get_by_text("Indexing done")).to_be_visible(timeout=180_000)
    _wait_idle(page)
    _shot(page, "chat-2-file-indexed")

    sidebar = page.get_by_test_id("stSidebar")
    sidebar.get_by_role("combobox", name="Documents to use").click()
    page.get_by_role("option", name="pep-0020.rst").click()
    page.keyboard.press("Escape")
    _wait_idle(page)
    _ask(page, "What does it say about beauty?")
    _answered(page, "What does it say about beauty?", expect)
    asked = _saved(root)
    assert {s["file_name"] for s in asked["messages"][-1]["sources"]} == {"pep-0020.rst"}
    _shot(page, "chat-3-scoped-to-one-file")

    _ask(page, "And what about simplicity?")
    stop = page.get_by_role("button", name="Stop")
    expect(stop).to_be_visible()
    streaming = page.get_by_test_id("stChatMessage").last
    expect(streaming).to_contain_text("lighthouse")  # the reply has begun to stream
    stop.click()
    expect(page.get_by_text("Stopped: the reply was cut short")).to_be_visible()
    stopped = _until(lambda chat: chat["messages"][-1]["trace"].get("stopped_by_user"))
    kept = stopped["messages"][-1]["content"]
    assert kept.startswith("The passages say") and kept.endswith(" …")
    assert len(kept) < len(REPLY)  # cut short
    _shot(page, "chat-4-stopped")

    _wait_idle(page)
    regenerate = page.get_by_role("button", name="Regenerate")
    expect(regenerate).to_have_count(1)  # only the last reply offers it (once the run settles)
    # A rerun on a busy machine may still show the stale button beside the new one for a moment:
    # the newest is the last.
    regenerate.last.click()
    expect(page.get_by_text("Stopped: the reply was cut short")).to_have_count(0, timeout=60_000)
    regenerated = _until(lambda chat: not chat["messages"][-1]["trace"].get("stopped_by_user"))
    assert regenerated["messages"][-2]["content"] == "And what about simplicity?"
    _answered(page, "And what about simplicity?", expect)
    _shot(page, "chat-5-regenerated")

    page.locator(".st-key-edit_0 button").first.click()
    page.get_by_label("Edit your question").fill("What does the speech say about jobs?")
    page.get_by_role("button", name="Send edited question").click()
    expect(page.locator(".st-key-edit_2")).to_have_count(0, timeout=60_000)
    _until(lambda chat: [m["content"] for m in chat["messages"] if m["role"] == "user"] == [
        "What does the speech say about jobs?"] and len(chat["messages"]) == 2)
    # an edited first question is titled again (a model call of seconds): the edit box leaves
    # the screen when that run ends
    expect(page.get_by_label("Edit your question")).to_have_count(0)
    _answered(page, "What does the speech say about jobs?", expect)
    _shot(page, "chat-6-edited-and-resent")

    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    reply = page.get_by_test_id("stChatMessage").last
    reply.get_by_role("button", name="Copy").click()  # one click (issue 66)
    expect(reply.get_by_role("button", name="Copied")).to_be_visible()
    copied = page.evaluate("navigator.clipboard.readText()")  # the reply as shown: checked
    assert copied.startswith("Check this answer against the sources:")  # in plain text
    assert REPLY.split(". ")[0] in copied and "(not in the documents)" in copied
    assert "**" not in copied and "](#" not in copied
    _shot(page, "chat-7-copied")
    page.keyboard.press("Escape")

    older = next(p.stem for p in (root / "chats").glob("*.json")
                 if json.loads(p.read_text())["title"] == "Old notes on PEP 20")
    page.locator(f".st-key-pin_{older} button").first.click()
    _wait_idle(page)
    for heading in ("Pinned", "Today", "Yesterday"):
        expect(sidebar.get_by_text(heading, exact=True)).to_be_visible()
    _shot(page, "chat-8-titled-grouped-pinned")
