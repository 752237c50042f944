"""Your work is safe (issue 66), in a real Chromium: Regenerate keeps the reply it replaces and
"< 1/2 >" brings it back; Edit keeps the turns that followed, reachable the same way; a new chat
asked what another was gets a distinct title, which follows an edited first question; Copy puts
the reply on the clipboard in one click, in plain text with its sources as footnotes; a question
sent while scrolled up is brought into view. "Copied" is said in the success colour.

Extractive answers and the fake embedder: no model, a few seconds a reply. Set
RAGCORE_SCREENSHOTS=<folder> to keep a screenshot per step.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from test_browser import _shot, _wait_idle, page, start_app, stop_app  # noqa: F401 (fixture)

from ragcore.chat.titles import key_phrase_title
from ragcore.embeddings.fake import FakeEmbedder
from ragcore.workspace import Workspace
from ragcore.workspace.chats import SavedChat

pytestmark = [pytest.mark.browser, pytest.mark.slow]
UKRAINE = "What did the speech say about Ukraine?"
JOBS = "What did it say about jobs?"
INFLATION = "What did the speech say about inflation?"
ENERGY = "What did the speech say about energy prices?"
EARLIER_KEPT = "Your earlier conversation from here is kept: see version 1/2"
TAKEN = key_phrase_title(UKRAINE)  # an earlier chat asked the same: "Speech, Ukraine"


def _workspace(root: Path, corpus_dir: Path) -> Path:
    ws = Workspace(root, embedder=FakeEmbedder())
    ws.ingest("docs", [corpus_dir / "state_of_the_union" / "state_of_the_union.txt",
                       corpus_dir / "python_peps" / "pep-0020.rst"])
    earlier = SavedChat(index="docs", chat_mode="condense_plus_context", title=TAKEN)
    earlier.add_message("user", UKRAINE)
    earlier.add_message("assistant", "An earlier answer.")
    ws.save_chat(earlier)
    return root


def _newest(root: Path) -> dict:
    """The chat made in the app (its id, which starts with its time, is the newest)."""
    chats = [json.loads(p.read_text()) for p in (root / "chats").glob("*.json")]
    return max(chats, key=lambda c: c["id"])


def _ask(page, question: str, expect) -> None:
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(question)
    box.press("Enter")
    _answered(page, question, expect)


def _answered(page, question: str, expect) -> None:
    expect(page.get_by_text(question, exact=True).last).to_be_visible()
    expect(page.get_by_role("button", name="Stop")).to_have_count(0)
    _wait_idle(page)


def test_versions_titles_copy_and_scroll(page, tmp_path, corpus_dir):  # noqa: F811 (fixture)
    from playwright.sync_api import expect

    root = _workspace(tmp_path / "ws", corpus_dir)
    proc, url = start_app(root, tmp_path / "streamlit.log", RAGCORE_EMBEDDER="fake")
    try:
        page.set_default_timeout(90_000)
        expect.set_options(timeout=90_000)
        page.goto(f"{url}/chat")
        expect(page.get_by_text("Chat with your documents")).to_be_visible(timeout=120_000)
        _wait_idle(page)
        for question in (UKRAINE, JOBS, INFLATION):
            _ask(page, question, expect)
        _titles_are_distinct(page, root, expect)
        _copy_in_one_click(page, url, expect)
        _scroll_to_the_new_question(page, expect)
        _regenerate_keeps_versions(page, root, expect)
        _edit_keeps_the_turns_that_followed(page, root, expect)
    except BaseException:
        _shot(page, "versions-failed-here")
        raise
    finally:
        stop_app(proc)


def _titles_are_distinct(page, root: Path, expect) -> None:
    expect(page.get_by_test_id("stSidebar").get_by_role("button", name=TAKEN, exact=True)
           ).to_be_visible()
    titles = page.evaluate("""Array.from(document.querySelectorAll(
        '[data-testid="stSidebar"] button')).filter(b => b.closest('[class*="st-key-open_20"]'))
        .map(b => b.innerText.trim())""")  # the saved chats listed (ids start with the year)
    assert len(set(titles)) == 2 and TAKEN in titles, titles  # two chats, two titles
    assert _newest(root)["title"].startswith(TAKEN + ":"), _newest(root)["title"]
    _shot(page, "versions-1-distinct-titles")


def _copy_in_one_click(page, url: str, expect) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    reply = page.get_by_test_id("stChatMessage").last
    reply.get_by_role("button", name="Copy").click()  # one click: no box, no hover icon
    expect(reply.get_by_role("button", name="Copied")).to_be_visible()
    red, green, _ = _colour(reply.get_by_role("button", name="Copied"))
    assert green > red, (red, green)  # said in the success colour, not an error's red
    copied = page.evaluate("navigator.clipboard.readText()")
    text, _, notes = copied.partition("\n\n[1] ")
    assert text and notes, copied  # the reply, then its sources as numbered footnotes
    assert "](#" not in copied and "[[" not in copied and "**" not in copied, copied
    assert "state_of_the_union.txt" in notes.splitlines()[0], copied
    _shot(page, "versions-2-copied")


def _colour(button) -> tuple[int, ...]:
    """The red, green and blue of ``button``'s text as drawn (the pointer still over it)."""
    drawn = button.evaluate("b => getComputedStyle(b.querySelector('.rc-copy-label')).color")
    return tuple(int(part) for part in re.findall(r"\d+", drawn)[:3])


def _scroll_to_the_new_question(page, expect) -> None:
    first = page.get_by_text(UKRAINE, exact=True).last
    for _ in range(3):  # the main column scrolls, not the window
        first.scroll_into_view_if_needed()
        page.mouse.move(700, 400)
        page.mouse.wheel(0, -20_000)
    expect(first).to_be_in_viewport()
    box = page.get_by_test_id("stChatInputTextArea")
    box.fill(ENERGY)
    box.press("Enter")
    expect(page.get_by_text(ENERGY, exact=True)).to_be_in_viewport()
    _answered(page, ENERGY, expect)
    expect(page.get_by_text(ENERGY, exact=True)).to_be_in_viewport()
    expect(page.locator(".st-key-answer_7")).to_be_in_viewport()  # its reply, below it
    _shot(page, "versions-3-scrolled-to-the-question")


def _regenerate_keeps_versions(page, root: Path, expect) -> None:
    replaced = _newest(root)["messages"][7]
    page.get_by_role("button", name="Regenerate").last.click()
    expect(page.locator(".st-key-version_back_6")).to_be_visible()
    _wait_idle(page)
    expect(page.get_by_text("2/2", exact=True)).to_be_visible()
    saved = _newest(root)["messages"]
    assert saved[6]["content"] == ENERGY  # asked again as written
    assert saved[6]["versions"][0][1]["created"] == replaced["created"]
    page.locator(".st-key-version_back_6 button").first.click()  # (help: drawn twice)
    expect(page.get_by_text("1/2", exact=True)).to_be_visible()
    _wait_idle(page)
    assert _newest(root)["messages"][7]["created"] == replaced["created"]  # back, and saved
    _shot(page, "versions-4-regenerated-and-back")


def _edit_keeps_the_turns_that_followed(page, root: Path, expect) -> None:
    page.locator(".st-key-edit_0 button").first.click()
    page.get_by_label("Edit your question").fill(INFLATION)
    page.get_by_role("button", name="Send edited question").click()
    expect(page.locator(".st-key-edit_2")).to_have_count(0)
    _answered(page, INFLATION, expect)
    expect(page.get_by_label("Edit your question")).to_have_count(0)  # the edit box is gone
    chat = _newest(root)
    assert [m["content"] for m in chat["messages"]][0] == INFLATION
    assert [m["content"] for m in chat["messages"][0]["versions"][0]][::2] == [
        UKRAINE, JOBS, INFLATION, ENERGY]
    assert chat["title"] != TAKEN and chat["title"].startswith(key_phrase_title(INFLATION))
    expect(page.get_by_test_id("stSidebar").get_by_role("button", name=chat["title"])
           ).to_be_visible()  # the title follows the edit
    expect(page.get_by_text("2/2", exact=True)).to_be_visible()
    expect(page.get_by_text(EARLIER_KEPT)).to_be_visible()  # where the later turns went
    _shot(page, "versions-5-edited")
    page.locator(".st-key-version_back_0 button").first.click()  # the kept turns, reachable
    expect(page.get_by_text(JOBS, exact=True)).to_be_visible()
    expect(page.get_by_text(ENERGY, exact=True)).to_be_visible()
    expect(page.get_by_text("1/2", exact=True).first).to_be_visible()
    _shot(page, "versions-6-earlier-turns-back")
