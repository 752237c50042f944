"""An upload's progress, in a real Chromium (issue 66, the third walk): the Upload page and the
sidebar count the same passages at every moment while it runs (the walk saw two counts), and
the sidebar's Cancel goes when the indexing is done (the walk saw it stay).

The app runs with the fake embedder slowed (``RAGCORE_FAKE_EMBED_SECONDS``), so Pride and
Prejudice takes some seconds to index. Set RAGCORE_SCREENSHOTS=<folder> to keep screenshots.
"""

from __future__ import annotations

import re

import page_record
import pytest
from test_browser import (  # noqa: F401 (the page fixture)
    WORK_TIMEOUT_MS, _go, _shot, _upload, _wait_idle, page, start_app, stop_app,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SECONDS_PER_PASSAGE = "0.02"
# The sidebar's and the main part's progress lines, whether the sidebar offers Cancel, and
# whether the result is shown.
PROGRESS = """() => {
  const lines = (root) => [...root.querySelectorAll('[data-testid="stProgress"]')]
    .map(e => e.innerText.trim());
  const bar = document.querySelector('[data-testid="stSidebar"]');
  const main = document.querySelector('[data-testid="stMain"]');
  const cancel = [...bar.querySelectorAll('button')].some(b => b.innerText.trim() === 'Cancel');
  return {sidebar: lines(bar), main: lines(main), cancel: cancel,
          done: main.innerText.includes('Result for index')};
}"""
COUNT = re.compile(r"passage ([\d,]+) of about ([\d,]+)")


def test_the_page_and_the_sidebar_count_alike_and_cancel_goes_when_done(
        tmp_path, corpus_dir, page):  # noqa: F811
    from playwright.sync_api import expect

    proc, url = start_app(tmp_path / "workspace", tmp_path / "streamlit.log",
                          RAGCORE_EMBEDDER="fake", RAGCORE_FAKE_EMBED_SECONDS=SECONDS_PER_PASSAGE)
    try:
        page.goto(url)
        _go(page, "Upload")
        name_box = page.get_by_role("textbox", name="Name of the new index")
        name_box.fill("Novels")
        name_box.press("Enter")
        _wait_idle(page)
        _upload(page, corpus_dir / "gutenberg_books" / "pg1342.txt")
        page_record.start(page, PROGRESS)
        page.get_by_role("button", name="Index 1 file").click()
        expect(page.get_by_text(re.compile("Result for index"))).to_be_visible(
            timeout=WORK_TIMEOUT_MS)
        page.wait_for_timeout(5000)
        _shot(page, "upload-progress-done")
        seen = page_record.records(page)
    finally:
        stop_app(proc)
    counted = [{c for line in r["sidebar"] + r["main"] for c in COUNT.findall(line)}
               for r in seen]
    assert any(counted), "no count of the passages was seen"
    differ = [(r["sidebar"], r["main"]) for r, counts in zip(seen, counted) if len(counts) > 1]
    assert not differ, differ[:5]  # one count on screen at a time, whichever shows it
    after = [r for r in seen if r["done"]]
    late = [r for r in after if r["cancel"] and r["t"] > after[0]["t"] + 3000]
    assert not late, "Cancel was still offered 3 s after the result was shown"
