"""In a real Chromium: ingestion as background jobs (issue 12's "done when").

Start a large upload; while it runs, re-index a small file in another index (it finishes while
the large one still runs); cancel the large job once it saved a batch (the index keeps those
batches and answers a question from them); restart the app (the job list shows what happened).

Uses the harness of tests/test_browser.py (Chromium, playwright, the packaged model, the
extractive backend). Timeouts are generous: CI runs this on 2 slow cores.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest
from test_browser import (  # noqa: F401 (the page fixture)
    WORK_TIMEOUT_MS, _go, _require_browser, _shot, _upload, _wait_idle, page, start_app,
    stop_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BIG_COPIES = 90  # copies of a 40 KB speech: about 3.5 MB, thousands of chunks


class App:
    """``streamlit run app.py`` on one workspace, which can be stopped and started again."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "workspace"
        self.log = tmp_path / "streamlit.log"
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def start(self) -> str:
        self.proc, self.url = start_app(self.workspace, self.log)
        return self.url

    def stop(self) -> None:
        if self.proc is not None:
            stop_app(self.proc)
        self.proc = None


@pytest.fixture
def app(tmp_path):
    _require_browser()
    server = App(tmp_path)
    try:
        yield server
    finally:
        server.stop()


def _big_file(tmp_path: Path, corpus_dir: Path) -> Path:
    speech = (corpus_dir / "state_of_the_union" / "state_of_the_union.txt").read_text()
    path = tmp_path / "big.txt"
    path.write_text("\n\n".join(f"Copy {n} of the address.\n\n{speech}"
                                for n in range(BIG_COPIES)))
    return path


def _saved_chunks(workspace: Path, name: str) -> int:
    from ragcore.workspace.stats import read_facts

    try:
        return read_facts(workspace / "indexes" / name).nodes
    except Exception:  # noqa: BLE001 - being written right now: ask again
        return 0


def _journal(workspace: Path) -> dict[str, object]:
    from ragcore.workspace.jobs.journal import JobJournal

    return {job.title(): job for job in JobJournal(workspace / "jobs").all()}


def _journalled(workspace: Path, title: str, state: str) -> object:
    """The job once its journal says ``state`` (the page may show it a moment before)."""
    deadline = time.monotonic() + 60
    while True:
        job = _journal(workspace).get(title)
        if job is not None and job.state == state:
            return job
        assert time.monotonic() < deadline, f"{title}: {job and job.state} in the journal"
        time.sleep(0.5)


def _open(page, label: str, title: str) -> None:
    """Go to a page by one click on its sidebar link: the page must show (the title says
    which) and stay shown once the app is idle, however the job progress redraws meanwhile."""
    _go(page, label)
    _landed(page, title)


def _landed(page, title: str) -> None:
    from playwright.sync_api import expect

    if title == "Chat with your documents":  # its title is not found as a heading once the
        shown = page.get_by_placeholder("Ask about your documents")  # chat layout settles
    else:
        shown = page.get_by_test_id("stMain").get_by_role("heading", name=title, exact=True)
    expect(shown).to_be_visible(timeout=WORK_TIMEOUT_MS)
    _wait_idle(page)
    page.wait_for_timeout(2500)  # a progress redraw (every 2 s) must not take the page back
    expect(shown).to_be_visible()


PAGES = [("Start", "Your documents, answered"), ("Upload", "Upload documents"),
         ("Query", "Ask your documents"), ("Chat", "Chat with your documents"),
         ("Settings", "Settings"), ("Indexes", "Indexes")]


def _page_links_work_while(page, workspace: Path, title: str) -> None:
    """Every page link, and the Upload result's link to the index, lands at the first click
    while job ``title`` runs and redraws its progress in the sidebar."""
    for label, heading in PAGES:
        _open(page, label, heading)
    _open(page, "Upload", "Upload documents")
    page.get_by_test_id("stMain").get_by_role("link", name="See the index").first.click()
    _landed(page, "Indexes")
    assert _journal(workspace)[title].active, "the job ended before the links were tried"


def _pick(page, label: str, option: str, *, sidebar: bool = False) -> None:
    """Choose ``option`` in the selectbox labelled ``label``."""
    scope = page.get_by_test_id("stSidebar") if sidebar else page.get_by_test_id("stMain")
    scope.get_by_role("combobox", name=label, exact=True).click()
    page.get_by_role("option", name=option, exact=True).click()
    _wait_idle(page)


def _new_index(page, name: str) -> None:
    name_box = page.get_by_role("textbox", name="Name of the new index")
    name_box.fill(name)
    name_box.press("Enter")
    _wait_idle(page)


def test_jobs_run_beside_each_other_cancel_and_survive_a_restart(app, page, tmp_path,
                                                                  corpus_dir):
    try:
        _drive(app, page, tmp_path, corpus_dir)
    except BaseException:
        _shot(page, "jobs-failed")
        raise


def _drive(app, page, tmp_path: Path, corpus_dir: Path) -> None:
    from playwright.sync_api import expect

    small = tmp_path / "small.txt"
    small.write_text("Owls hunt at night. Their soft feathers make their flight silent.")
    big = _big_file(tmp_path, corpus_dir)
    sidebar = page.get_by_test_id("stSidebar")
    page.goto(app.start())

    # A small index first (this also loads the model).
    _open(page, "Upload", "Upload documents")
    _new_index(page, "small")
    _upload(page, small)
    page.get_by_role("button", name="Index 1 file").click()
    expect(page.get_by_text("1 indexed")).to_be_visible(timeout=WORK_TIMEOUT_MS)

    # The large upload: the page returns at once and the sidebar shows the job going.
    _pick(page, "Index", "New index…")
    _new_index(page, "big")
    _upload(page, big)
    page.get_by_role("button", name="Index 1 file").click()
    big_title = "Index big.txt into “big”"
    expect(sidebar.get_by_text(big_title)).to_be_visible(timeout=WORK_TIMEOUT_MS)
    _shot(page, "jobs-1-big-started")

    # Re-index the small file in the other index: it finishes while the large job runs.
    _open(page, "Indexes", "Indexes")
    _pick(page, "Index", "small")
    page.get_by_role("button", name="Re-index").click()
    reindex_title = "Re-index small.txt in “small”"
    expect(sidebar.get_by_text(re.compile(reindex_title + ".*done"))).to_be_visible(
        timeout=WORK_TIMEOUT_MS)
    _journalled(app.workspace, reindex_title, "done")
    assert _journal(app.workspace)[big_title].active, "the large job should still run"
    _shot(page, "jobs-2-reindexed")
    _page_links_work_while(page, app.workspace, big_title)

    # Cancel the large job once it saved a batch; the saved batches stay in the index.
    deadline = time.monotonic() + WORK_TIMEOUT_MS / 1000
    while _saved_chunks(app.workspace, "big") == 0:
        assert time.monotonic() < deadline, "the large job saved no batch in time"
        assert _journal(app.workspace)[big_title].active, "the large job ended too soon"
        time.sleep(1)
    sidebar.get_by_role("button", name="Cancel").click()
    expect(sidebar.get_by_text(re.compile(big_title + ".*cancelled"))).to_be_visible(
        timeout=WORK_TIMEOUT_MS)
    job = _journalled(app.workspace, big_title, "cancelled")
    kept = _saved_chunks(app.workspace, "big")
    assert 0 < kept < job.chunks_total  # a prefix of the file's chunks
    assert job.report["cancelled"] is True and job.report["chunks"] == kept
    _shot(page, "jobs-3-cancelled")

    # The cancelled index answers from the batches it kept.
    _open(page, "Query", "Ask your documents")
    _pick(page, "Index", "big", sidebar=True)
    page.get_by_role("textbox", name="Your question").fill("What did the address say about "
                                                           "Ukraine?")
    page.get_by_role("textbox", name="Your question").press("Enter")
    _wait_idle(page)
    page.get_by_role("button", name="Ask").click()
    answer = page.get_by_test_id("stMain")
    expect(answer).to_contain_text("Extractive answer", timeout=WORK_TIMEOUT_MS)
    expect(answer).to_contain_text("big.txt")
    _shot(page, "jobs-4-answer")

    # After a restart the job list shows what happened.
    app.stop()
    page.goto(app.start())
    expect(sidebar.get_by_text(re.compile(big_title + ".*cancelled"))).to_be_visible(
        timeout=WORK_TIMEOUT_MS)
    expect(sidebar.get_by_text(re.compile(reindex_title + ".*done"))).to_be_visible()
    _open(page, "Indexes", "Indexes")
    _pick(page, "Index", "big")
    page.get_by_role("tab", name="Jobs").click()
    expect(page.get_by_test_id("stMain")).to_contain_text("cancelled")
    _shot(page, "jobs-5-after-restart")


def test_the_sidebar_cancels_an_ingest_running_in_a_terminal(app, page, tmp_path):
    """A `ragcore ingest` in its own process shows in the app's sidebar; its Cancel there stops
    the command after the current batch, which keeps what it saved and says so."""
    from playwright.sync_api import expect
    from test_jobs_cross_process import _big_text, _cli_job, _start_cli

    page.goto(app.start())
    process = _start_cli(app.workspace, _big_text(tmp_path / "big.txt"),
                         seconds_per_chunk=0.03)  # a few minutes unless cancelled
    try:
        job = _cli_job(app.workspace, process)  # embedding, a batch saved
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text("Index big.txt into “big”:")).to_be_visible(
            timeout=WORK_TIMEOUT_MS)  # started after the page showed: found by the idle look
        expect(sidebar.get_by_text(f"Started from the command line (process {process.pid})")
               ).to_be_visible()
        _shot(page, "jobs-cli-running")
        sidebar.get_by_role("button", name="Cancel").click()
        _, err = process.communicate(timeout=WORK_TIMEOUT_MS / 1000)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130 and "Cancelled from another process" in err, err
    expect(sidebar.get_by_text(re.compile("Index big.txt into “big”: cancelled"))
           ).to_be_visible(timeout=WORK_TIMEOUT_MS)
    finished = _journalled(app.workspace, "Index big.txt into “big”", "cancelled")
    assert finished.id == job.id and 0 < _saved_chunks(app.workspace, "big")
    _shot(page, "jobs-cli-cancelled")
