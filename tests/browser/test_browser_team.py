"""Team mode in a real Chromium (issue 22): the admin's one-time set-up, two accounts made on
the Team page, Ana's private and shared indexes and a chat, Bob seeing only the shared index and
refused Ana's chat by its URL, a reload keeping the sign-in (the session cookie), and the
lockout after 10 wrong passwords.

Reuses the harness of tests/test_browser.py (a `streamlit run` server, here with
RAGCORE_AUTH=local and the fake embedder). Set RAGCORE_SCREENSHOTS=<folder> to keep a
screenshot per step.
"""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from test_browser import _go, _shot, _upload, _wait_idle, _require_browser, page, start_app, stop_app  # noqa: F401

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TIMEOUT_MS = 60_000


@pytest.fixture
def team_url(tmp_path):
    _require_browser()
    proc, url = start_app(tmp_path / "workspace", tmp_path / "streamlit.log",
                          RAGCORE_AUTH="local", RAGCORE_EMBEDDER="fake",
                          RAGCORE_DATABASE_URL="")  # the team database in the workspace
    try:
        yield url
    finally:
        stop_app(proc)


def _fill(page, label: str, text: str) -> None:
    page.get_by_label(label, exact=True).fill(text)


def _sign_in(page, name: str, password: str) -> None:
    from playwright.sync_api import expect

    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    _fill(page, "Name", name)
    _fill(page, "Password", password)
    page.get_by_role("button", name="Sign in").click()
    _wait_idle(page)


def _log_out(page) -> None:
    page.get_by_role("button", name="Log out", exact=True).click()
    _wait_idle(page)


def _new_index(page, name: str, path) -> None:
    from playwright.sync_api import expect

    _go(page, "Upload")
    expect(page.get_by_role("heading", name="Upload documents")).to_be_visible()
    _wait_idle(page)  # else the click may land on the page being left (seen once under load)
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="New index…").click()
    box = page.get_by_role("textbox", name="Name of the new index")
    box.fill(name)
    box.press("Enter")
    _upload(page, path)
    page.get_by_role("button", name="Index 1 file").click()
    done = page.get_by_text(re.compile(f"Index {path.name} into “{name}”: done"))
    expect(done.first).to_be_visible(timeout=TIMEOUT_MS)  # in the sidebar's jobs


def _wait_for_failures(page, root, tries: int) -> None:
    """Wait until the team database counted ``tries`` wrong passwords for bob (the 10th locks:
    the count starts again and the lock is set)."""
    for _ in range(100):
        with sqlite3.connect(root / "team.sqlite3") as db:
            row = db.execute("SELECT failures, locked_until FROM login_failures "
                             "WHERE key = 'user:bob'").fetchone()
        if row and (row[0] >= tries or row[1] > time.time()):
            return
        page.wait_for_timeout(200)
    raise AssertionError(f"the app did not count wrong password {tries}: {row}")


def test_team_walk(team_url, page, tmp_path):
    from playwright.sync_api import expect

    private = tmp_path / "payroll.txt"
    private.write_text("Payroll of the zebracorn team: salaries are paid on the 25th. " * 30)
    shared = tmp_path / "handbook.txt"
    shared.write_text("Handbook: the office opens at nine and the kitchen closes at six. " * 30)

    page.goto(team_url)
    expect(page.get_by_role("heading", name="Set up this workspace")).to_be_visible()
    _fill(page, "Name (to sign in with)", "admin")
    _fill(page, "Password (8 characters or more)", "admin password")
    _fill(page, "Password again", "admin password")
    page.get_by_role("button", name="Create the administrator").click()
    expect(page.get_by_text("Signed in as")).to_be_visible()
    _shot(page, "team-1-set-up")

    _go(page, "Team")
    for name in ("ana", "bob"):
        _fill(page, "Name (to sign in with)", name)
        _fill(page, "First password (8 characters or more)", f"{name} password")
        page.get_by_role("button", name="Create", exact=True).click()
        expect(page.get_by_text(f"Created {name}.")).to_be_visible()
    _shot(page, "team-2-accounts")
    _log_out(page)

    _sign_in(page, "ana", "ana password")
    _new_index(page, "Payroll", private)
    _go(page, "Chat")
    page.get_by_test_id("stChatInputTextArea").fill("When are salaries paid?")
    page.get_by_test_id("stChatInputTextArea").press("Enter")
    expect(page.get_by_test_id("stChatMessage").nth(1)).to_contain_text(
        "Extractive answer", timeout=TIMEOUT_MS)
    page.wait_for_url(re.compile(r"chat="))
    ana_chat = page.url
    _new_index(page, "Handbook", shared)
    _go(page, "Indexes")
    _wait_idle(page)
    page.get_by_role("combobox", name="Index", exact=True).click()
    page.get_by_role("option", name="Handbook").click()
    _wait_idle(page)
    page.get_by_role("tab", name="Sharing, rename or delete").click()
    page.get_by_label("With").click()
    page.get_by_role("option", name="bob").click()
    page.get_by_role("button", name="Share").click()
    expect(page.get_by_text("bob: can read and chat")).to_be_visible()
    expect(page.get_by_text("Share “Handbook”")).to_be_visible()
    _shot(page, "team-3-shared")
    _log_out(page)

    _sign_in(page, "bob", "bob password")
    _go(page, "Indexes")
    expect(page.get_by_text("Handbook").first).to_be_visible()
    expect(page.get_by_text("Payroll")).to_have_count(0)
    _shot(page, "team-4-bob-indexes")
    page.reload()  # the session cookie keeps Bob signed in
    expect(page.get_by_text("Signed in as")).to_be_visible()
    page.goto(ana_chat)
    expect(page.get_by_text("private to the person who wrote it")).to_be_visible()
    expect(page.get_by_text("salaries")).to_have_count(0)
    expect(page.get_by_text("zebracorn")).to_have_count(0)
    _shot(page, "team-5-bob-refused-chat")
    _log_out(page)

    for tries in range(1, 11):  # each wrong password counted before the next is typed
        _sign_in(page, "bob", "not his password")
        _wait_for_failures(page, tmp_path / "workspace", tries)
        expect(page.get_by_text("wrong name or password")).to_be_visible()
    _sign_in(page, "bob", "bob password")
    expect(page.get_by_text("too many wrong passwords")).to_be_visible()
    expect(page.get_by_text("Signed in as")).to_have_count(0)
    _shot(page, "team-6-locked-out")
