"""In a real Chromium: two Streamlit servers on one workspace folder and the test Postgres
(``RAGCORE_DATABASE_URL``), as two app processes behind a load balancer would run.

A large upload is started on server one; server two's sidebar lists its job (from the jobs
table: the journal is not in the folder), and its Cancel stops it: the job, which runs in server
one's process, ends "cancelled" with its saved batches kept, and both servers show it so (the
app in single-user mode). In team mode (``RAGCORE_AUTH=local``), Bob signed in on server two
sees no index; Ana, signed in on server one, shares hers with him on its Indexes page, and on
server two the index shows on Bob's next page at once.
"""

from __future__ import annotations

import re
import time

import pytest
from test_browser import (  # noqa: F401 (the page fixture)
    WORK_TIMEOUT_MS, _go, _require_browser, _shot, _upload, _wait_idle, page, start_app,
    stop_app,
)
from test_browser_jobs import _big_file, _new_index, _open, _saved_chunks

from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TITLE = "Index big.txt into “big”"


def _journal_job(title: str):
    """The job titled ``title`` as the shared journal has it (the test's own connection)."""
    from ragcore.workspace.jobs.journal_pg import open_journal

    return {job.title(): job for job in open_journal("unused").all()}.get(title)


def test_a_job_started_on_one_server_is_seen_and_cancelled_on_the_other(
        page, tmp_path, pg_team_url, corpus_dir):  # noqa: F811
    from playwright.sync_api import expect

    _require_browser()
    workspace, big = tmp_path / "workspace", _big_file(tmp_path, corpus_dir)
    env = {"RAGCORE_DATABASE_URL": pg_team_url, "RAGCORE_EMBEDDER": "fake",
           "RAGCORE_FAKE_EMBED_SECONDS": "0.02"}
    one, url_one = start_app(workspace, tmp_path / "server-one.log", **env)
    try:
        two, url_two = start_app(workspace, tmp_path / "server-two.log", **env)
    except BaseException:
        stop_app(one)
        raise
    other = page.context.new_page()
    try:
        page.goto(url_one)
        _open(page, "Upload", "Upload documents")
        _new_index(page, "big")
        _upload(page, big)
        page.get_by_role("button", name="Index 1 file").click()
        expect(page.get_by_test_id("stSidebar").get_by_text(TITLE)).to_be_visible(
            timeout=WORK_TIMEOUT_MS)
        deadline = time.monotonic() + WORK_TIMEOUT_MS / 1000
        while _saved_chunks(workspace, "big") == 0:  # a batch saved: something to keep
            assert time.monotonic() < deadline, "the job saved no batch in time"
            time.sleep(0.5)

        other.goto(url_two)  # server two: the job of server one is listed, with Cancel
        sidebar_two = other.get_by_test_id("stSidebar")
        expect(sidebar_two.get_by_text(TITLE)).to_be_visible(timeout=WORK_TIMEOUT_MS)
        _shot(other, "two-servers-1-seen-on-server-two")
        sidebar_two.get_by_role("button", name="Cancel").click()
        cancelled = re.compile(re.escape(TITLE) + ".*cancelled")
        expect(sidebar_two.get_by_text(cancelled)).to_be_visible(timeout=WORK_TIMEOUT_MS)
        expect(page.get_by_test_id("stSidebar").get_by_text(cancelled)).to_be_visible(
            timeout=WORK_TIMEOUT_MS)
        _shot(page, "two-servers-2-cancelled-on-server-one")
    except BaseException:
        _shot(page, "two-servers-failed-one")
        _shot(other, "two-servers-failed-two")
        raise
    finally:
        stop_app(two)
        stop_app(one)
    job = _journal_job(TITLE)
    assert job.state == "cancelled" and job.pid == one.pid  # it ran on server one
    assert 0 < _saved_chunks(workspace, "big") == job.report["chunks"] < job.work_total
    assert not (workspace / "jobs").exists()


def _two_servers(tmp_path, **env: str):
    """Two app servers on ``tmp_path/workspace`` with ``env``; returns both processes and URLs."""
    one, url_one = start_app(tmp_path / "workspace", tmp_path / "server-one.log", **env)
    try:
        two, url_two = start_app(tmp_path / "workspace", tmp_path / "server-two.log", **env)
    except BaseException:
        stop_app(one)
        raise
    return (one, url_one), (two, url_two)


def _sign_in(page, url: str, name: str) -> None:
    from playwright.sync_api import expect

    page.goto(url)
    page.get_by_label("Name", exact=True).fill(name)
    page.get_by_label("Password", exact=True).fill(f"{name} password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Sign in")).to_have_count(0, timeout=WORK_TIMEOUT_MS)
    _wait_idle(page)


def test_a_share_made_on_one_server_applies_on_the_other_at_once(page, tmp_path,
                                                                 pg_team_url):  # noqa: F811
    from playwright.sync_api import expect

    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace import Workspace
    from ragcore.workspace.team.passwords import fast_hasher
    from ragcore.workspace.permitted import create_index
    from ragcore.workspace.team.team import Team

    _require_browser()
    workspace = tmp_path / "workspace"
    with Team.open(workspace, hasher=fast_hasher()) as team:  # as `ragcore users add` would
        admin = team.accounts.set_up("root", "root password")
        ana = team.accounts.create(admin, "ana", "ana password")
        team.accounts.create(admin, "bob", "bob password")
        create_index(team, ana, Workspace(workspace, embedder=FakeEmbedder()), "reports")
    (one, url_one), (two, url_two) = _two_servers(
        tmp_path, RAGCORE_DATABASE_URL=pg_team_url, RAGCORE_EMBEDDER="fake", RAGCORE_AUTH="local")
    bob = page.context.browser.new_context().new_page()  # his own cookies
    try:
        _sign_in(bob, url_two, "bob")
        _go(bob, "Indexes")
        expect(bob.get_by_text("There is no index yet")).to_be_visible(timeout=WORK_TIMEOUT_MS)

        _sign_in(page, url_one, "ana")
        _go(page, "Indexes")
        page.get_by_role("tab", name="Sharing, rename or delete").click()
        page.get_by_role("combobox", name="With").click()
        page.get_by_role("option", name="bob", exact=True).click()
        page.get_by_role("button", name="Share").click()
        expect(page.get_by_text("bob: can read and chat")).to_be_visible(timeout=WORK_TIMEOUT_MS)
        _shot(page, "two-servers-3-shared-on-server-one")

        _go(bob, "Start")
        _go(bob, "Indexes")  # his next page on server two: the share applies already
        expect(bob.get_by_test_id("stMain").get_by_role("combobox", name="Index")).to_be_visible(
            timeout=WORK_TIMEOUT_MS)
        expect(bob.get_by_text("There is no index yet")).to_have_count(0)
        _shot(bob, "two-servers-4-seen-on-server-two")
    except BaseException:
        _shot(page, "two-servers-failed-ana")
        _shot(bob, "two-servers-failed-bob")
        raise
    finally:
        stop_app(two)
        stop_app(one)
